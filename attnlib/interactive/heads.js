var hr=qa(".attnfig-head"), wr=qa(".attnfig-word"), cells=qa(".attnfig-a"), rows=qa(".attnfig-arow"), n=D.labels.length;
function picked(list){ for(var i=0;i<list.length;i++) if(list[i].checked) return list[i].value; return list[0].value; }
function vec(v){ return "["+v.map(f2).join(", ")+"]"; }
function zrow(k, i){ var V=D.V[k], a=D.A[k][i], z=[];
  for(var c=0;c<V[0].length;c++){ z.push(0); for(var j=0;j<n;j++) z[c]+=a[j]*V[j][c]; } return z; }
function update(){
  var h=picked(hr), i=parseInt(picked(wr),10);
  rows.forEach(function(r,a){ r.classList.toggle("attnfig-lit", a===i); });
  if(h==="all"){
    q(".attnfig-onehead").style.display="none"; q(".attnfig-allheads").style.display="";
    var cat=[]; for(var k=0;k<D.A.length;k++) cat=cat.concat(zrow(k, i));
    var out=[]; for(var c=0;c<D.WO[0].length;c++){ out.push(0); for(var r=0;r<cat.length;r++) out[c]+=cat[r]*D.WO[r][c]; }
    set(".attnfig-say", "the z's of word "+i+" side by side: "+vec(cat)+"; times W_O: output "+vec(out));
  } else {
    var k=parseInt(h,10), z=zrow(k, i);
    q(".attnfig-onehead").style.display=""; q(".attnfig-allheads").style.display="none";
    set(".attnfig-aname", "A, head "+k);
    cells.forEach(function(td,m){ td.textContent=f2(D.A[k][Math.floor(m/n)][m%n]); });
    set(".attnfig-say", "head "+k+" ("+D.names[k]+"): z"+i+" = row "+i+" of A times its V = "+vec(z));
  }
}
hr.forEach(function(r){ r.addEventListener("change", update); });
wr.forEach(function(r){ r.addEventListener("change", update); });
update();
