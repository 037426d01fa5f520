function f2(x){ if(x===-Infinity) return "\u2212\u221e"; if(Math.abs(x)<0.005) x=0; return x.toFixed(2).replace("-","\u2212"); }
function softmax(s){ var m=-Infinity, i, e=[], t=0; for(i=0;i<s.length;i++) if(s[i]>m) m=s[i];
  if(m===-Infinity) return s.map(function(){ return NaN; });
  for(i=0;i<s.length;i++){ e.push(s[i]===-Infinity?0:Math.exp(s[i]-m)); t+=e[i]; }
  return e.map(function(x){ return x/t; }); }
function q(sel){ return root.querySelector(sel); }
function qa(sel){ return Array.prototype.slice.call(root.querySelectorAll(sel)); }
function set(sel, text){ q(sel).textContent = text; }
