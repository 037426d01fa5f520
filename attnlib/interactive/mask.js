var cells=qa(".attnfig-cell"), modes=qa(".attnfig-mode"), aw=qa(".attnfig-a"), sums=qa(".attnfig-rowsum"), n=D.S.length;
function mode(){ for(var i=0;i<modes.length;i++) if(modes[i].checked) return modes[i].value; return "minus_inf"; }
function hidden(i,j){ return cells[i*n+j].getAttribute("aria-pressed")==="true"; }
function row(i, m){ var s=D.S[i], w;
  if(m==="minus_inf") return softmax(s.map(function(x,j){ return hidden(i,j) ? -Infinity : x; }));
  if(m==="zero_before") return softmax(s.map(function(x,j){ return hidden(i,j) ? 0 : x; }));
  w=softmax(s); return w.map(function(x,j){ return hidden(i,j) ? 0 : x; }); }
function update(){
  var m=mode(), off=[], empty=[];
  for(var i=0;i<n;i++){ var w=row(i,m), t=0;
    for(var j=0;j<n;j++){ aw[i*n+j].textContent = isNaN(w[j]) ? "\u2014" : f2(w[j]); t+=w[j]; }
    if(isNaN(t)){ empty.push(i); sums[i].textContent="\u2014"; } else { sums[i].textContent=f2(t); if(Math.abs(t-1)>0.005) off.push(i); } }
  var note;
  if(empty.length) note = empty.map(function(i){ return "row "+i; }).join(", ")+" hides every key: softmax of all \u2212\u221e is 0/0, undefined";
  else if(off.length) note = off.map(function(i){ return "row "+i; }).join(", ")+" no longer sum"+(off.length===1?"s":"")+" to 1: zeroing after softmax loses the hidden share";
  else if(m==="zero_before") note = "every row sums to 1.00, but a hidden key still gets weight: a score of 0 is not \u201cno score\u201d";
  else note = "every row sums to 1.00: softmax shares each row among the keys it may see";
  set(".attnfig-note", note);
}
cells.forEach(function(c){ c.addEventListener("click", function(){ c.setAttribute("aria-pressed", hidden(+c.dataset.i, +c.dataset.j) ? "false" : "true"); update(); }); });
q(".attnfig-causal").addEventListener("click", function(){ cells.forEach(function(c){ c.setAttribute("aria-pressed", (+c.dataset.j > +c.dataset.i) ? "true" : "false"); }); update(); });
q(".attnfig-clear").addEventListener("click", function(){ cells.forEach(function(c){ c.setAttribute("aria-pressed", "false"); }); update(); });
modes.forEach(function(r){ r.addEventListener("change", update); });
update();
