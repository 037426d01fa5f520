var sD=q(".attnfig-dk"), cb=q(".attnfig-div"), ss=qa(".attnfig-s"), ws=qa(".attnfig-w"), bars=qa(".attnfig-bar");
function panel(mode, i, mark){
  var c=D.hist[mode][i], top=Math.max.apply(null,c), R=D.reach[mode][i], W=160, H=80, x0=10;
  qa(".attnfig-hbar-"+mode).forEach(function(r,b){ var h=H*c[b]/top; r.setAttribute("y", (20+H-h).toFixed(2)); r.setAttribute("height", h.toFixed(2)); });
  qa(".attnfig-mark-"+mode).forEach(function(l,s){ var x=(x0+W/2+(2*s-1)*W/2*mark/R).toFixed(2); l.setAttribute("x1", x); l.setAttribute("x2", x); });
  qa(".attnfig-tick-"+mode).forEach(function(t,s){ t.textContent=String((s-1)*R).replace("-","\u2212"); });
}
function update(){
  var i=parseInt(sD.value,10), dk=D.dks[i], root=Math.sqrt(dk), div=cb.checked, mode=div?"scaled":"raw";
  panel("raw", i, root); panel("scaled", i, 1);
  set(".attnfig-marklabel-raw", "dashes at \u00b1\u221ad\u2096 = \u00b1"+f2(root));
  var s=D.row[i].map(function(x){ return div ? x/root : x; }), w=softmax(s);
  s.forEach(function(x,j){ ss[j].textContent=f2(x); ws[j].textContent=f2(w[j]); bars[j].style.width=(100*w[j]).toFixed(1)+"px"; });
  set(".attnfig-shead", div ? "S / \u221ad\u2096" : "S");
  set(".attnfig-dk-out", String(dk)); sD.setAttribute("aria-valuetext", "d\u2096 = "+dk);
  set(".attnfig-spread-raw", f2(D.spread.raw[i])); set(".attnfig-spread-scaled", f2(D.spread.scaled[i])); set(".attnfig-sqrt", f2(root));
  set(".attnfig-max", f2(Math.max.apply(null,w))); set(".attnfig-meanmax", f2(D.meanmax[mode][i]));
  set(".attnfig-rawdesc", "Histogram of 10,000 random dot products at d\u2096 = "+dk+", from \u2212"+D.reach.raw[i]+" to "+D.reach.raw[i]+"; spread "+f2(D.spread.raw[i]));
  set(".attnfig-scaleddesc", "Histogram of the same dot products divided by the square root of d\u2096; spread "+f2(D.spread.scaled[i]));
}
sD.addEventListener("input", update); cb.addEventListener("change", update);
update();
