var inputs=qa(".attnfig-w"), radios=qa(".attnfig-word"), moved=qa(".attnfig-moved"), labels=qa(".attnfig-mlabel"), cells=qa(".attnfig-xw"), U=D.unit;
function W(){ var M=[[0,0],[0,0]]; inputs.forEach(function(e){ var v=parseFloat(e.value); M[+e.dataset.r][+e.dataset.c]=isNaN(v)?0:v; }); return M; }
function times(x, M){ return [x[0]*M[0][0]+x[1]*M[1][0], x[0]*M[0][1]+x[1]*M[1][1]]; }
function chosen(){ for(var i=0;i<radios.length;i++) if(radios[i].checked) return i; return 0; }
function update(){
  var M=W(), i=chosen(), x=D.X[i];
  D.X.forEach(function(v,j){ var m=times(v,M);
    moved[j].setAttribute("x2", (m[0]*U).toFixed(2)); moved[j].setAttribute("y2", (-m[1]*U).toFixed(2));
    labels[j].setAttribute("x", (m[0]*U+5).toFixed(2)); labels[j].setAttribute("y", (-m[1]*U-5).toFixed(2));
    labels[j].setAttribute("display", j===i ? "inline" : "none"); moved[j].setAttribute("stroke-width", j===i ? "4" : "2");
    cells[j].textContent="["+f2(m[0])+", "+f2(m[1])+"]"; });
  var a=[x[0]*M[0][0], x[0]*M[0][1]], m=times(x,M), l0=q(".attnfig-leg0"), l1=q(".attnfig-leg1");
  l0.setAttribute("x2", (a[0]*U).toFixed(2)); l0.setAttribute("y2", (-a[1]*U).toFixed(2));
  l1.setAttribute("x1", (a[0]*U).toFixed(2)); l1.setAttribute("y1", (-a[1]*U).toFixed(2));
  l1.setAttribute("x2", (m[0]*U).toFixed(2)); l1.setAttribute("y2", (-m[1]*U).toFixed(2));
  set(".attnfig-name", D.words[i]);
  set(".attnfig-sum", f2(x[0])+" \u00d7 ["+f2(M[0][0])+", "+f2(M[0][1])+"] + "+f2(x[1])+" \u00d7 ["+f2(M[1][0])+", "+f2(M[1][1])+"] = ["+f2(m[0])+", "+f2(m[1])+"]");
  set(".attnfig-desc", "Dashed: the words' arrows x; solid: the moved arrows x W, with W = [["+M[0].join(", ")+"], ["+M[1].join(", ")+"]]");
}
inputs.forEach(function(e){ e.addEventListener("input", update); });
radios.forEach(function(r){ r.addEventListener("change", update); });
update();
