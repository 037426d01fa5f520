var cells=qa(".attnfig-cell"), mirror=qa(".attnfig-mirror"), n=D.n;
function light(i, j){
  qa(".attnfig-lit").forEach(function(e){ e.classList.remove("attnfig-lit"); });
  qa("td[data-row='"+i+"']").forEach(function(e){ e.classList.add("attnfig-lit"); });
  qa("td[data-col='"+j+"']").forEach(function(e){ e.classList.add("attnfig-lit"); });
  cells[i*n+j].classList.add("attnfig-lit"); mirror[j*n+i].classList.add("attnfig-lit");
  var qi=D.Q[i], kj=D.K[j], s=0, terms=[];
  for(var c=0;c<qi.length;c++){ s+=qi[c]*kj[c]; terms.push(f2(qi[c])+" \u00d7 "+f2(kj[c])); }
  set(".attnfig-how", "(Q K\u1d40)["+i+"]["+j+"] = row "+i+" of Q \u00b7 column "+j+" of K\u1d40 = "+terms.join(" + ")+" = "+f2(s));
  set(".attnfig-where", "(Q K\u1d40)\u1d40["+j+"]["+i+"] = "+f2(s));
}
cells.forEach(function(c, k){
  var i=+c.dataset.i, j=+c.dataset.j;
  c.addEventListener("mouseenter", function(){ light(i, j); });
  c.addEventListener("focus", function(){ cells.forEach(function(o){ o.tabIndex=-1; }); c.tabIndex=0; light(i, j); });
  c.addEventListener("click", function(){ c.focus(); light(i, j); });
  c.addEventListener("keydown", function(e){
    var di={ArrowUp:-1, ArrowDown:1}[e.key]||0, dj={ArrowLeft:-1, ArrowRight:1}[e.key]||0;
    if(!di && !dj) return;
    e.preventDefault();
    var a=Math.min(n-1, Math.max(0, i+di)), b=Math.min(n-1, Math.max(0, j+dj));
    cells[a*n+b].focus(); });
});
