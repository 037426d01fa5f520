var si=q(".attnfig-i"), sj=q(".attnfig-j"), hi=qa(".attnfig-handi"), hj=qa(".attnfig-handj");
function vec(v){ return v.map(f2).join(", "); }
function hands(lines, row){ lines.forEach(function(l,k){ var cx=45+90*k;
  l.setAttribute("x2", (cx+D.r*row[2*k]).toFixed(3)); l.setAttribute("y2", (45-D.r*row[2*k+1]).toFixed(3)); }); }
function update(){
  var i=parseInt(si.value,10), j=parseInt(sj.value,10), a=D.PE[i], b=D.PE[j], dot=0;
  for(var c=0;c<a.length;c++) dot+=a[c]*b[c];
  hands(hi, a); hands(hj, b);
  set(".attnfig-i-out", String(i)); set(".attnfig-j-out", String(j));
  si.setAttribute("aria-valuetext", "position "+i); sj.setAttribute("aria-valuetext", "position "+j);
  set(".attnfig-iname", String(i)); set(".attnfig-jname", String(j));
  set(".attnfig-pei", vec(a)); set(".attnfig-pej", vec(b));
  set(".attnfig-dot", f2(dot)); set(".attnfig-offset", String(i-j).replace("-","\u2212"));
  var m=q(".attnfig-marker");
  m.setAttribute("cx", (D.x0+(i-j+D.n-1)/(2*(D.n-1))*D.W).toFixed(2)); m.setAttribute("cy", (D.top+(D.hi-dot)/(D.hi-D.lo)*D.H).toFixed(2));
  set(".attnfig-cdesc", (a.length/2)+" clocks, one per sine\u2013cosine pair; solid hands for position "+i+", dashed for position "+j);
}
si.addEventListener("input", update); sj.addEventListener("input", update);
update();
