var radios=qa(".attnfig-word"), arow=qa(".attnfig-a"), bars=qa(".attnfig-bar"), zs=qa(".attnfig-z"), n=D.words.length;
function current(){ for(var i=0;i<radios.length;i++) if(radios[i].checked) return i; return 0; }
function update(){
  var i=current(), w=D.A[i], z=[], j, f, sum=0, top=0;
  q(".attnfig-sel").setAttribute("y", 22+i*30-1);
  for(f=0;f<D.V[0].length;f++){ z.push(0); for(j=0;j<n;j++) z[f]+=w[j]*D.V[j][f]; }
  for(j=0;j<n;j++){ arow[j].textContent=f2(w[j]); bars[j].style.width=(30*w[j]).toFixed(1)+"px"; sum+=w[j]; if(w[j]>w[top]) top=j; }
  zs.forEach(function(td,f){ td.textContent=f2(z[f]); });
  set(".attnfig-sum", f2(sum)); set(".attnfig-rowname", i+" "+D.words[i]); set(".attnfig-zname", String(i));
  set(".attnfig-summary", "z"+i+" of \u201c"+D.words[i]+"\u201d blends all "+n+" value vectors; the largest weight, "+f2(w[top])+", is on v"+top+" of \u201c"+D.words[top]+"\u201d.");
  set(".attnfig-desc", "Heatmap of the attention weights A; row "+i+" "+D.words[i]+" selected, largest weight "+f2(w[top])+" on "+D.words[top]);
}
radios.forEach(function(r){ r.addEventListener("change", update); });
qa(".attnfig-hrow").forEach(function(g){ g.addEventListener("click", function(){ var r=radios[parseInt(g.getAttribute("data-row"),10)]; r.checked=true; r.focus(); update(); }); });
update();
