var radios=qa(".attnfig-key"), sT=q(".attnfig-theta"), sK=q(".attnfig-klen");
function pt(v){ return [v[0]*D.scale, -v[1]*D.scale]; }
function line(sel, a, b){ var e=q(sel); e.setAttribute("x1",a[0]); e.setAttribute("y1",a[1]); e.setAttribute("x2",b[0]); e.setAttribute("y2",b[1]); }
function head(sel, tip){ var L=Math.hypot(tip[0],tip[1]), e=q(sel); if(L<1e-9){ e.setAttribute("points",""); return; }
  var ux=tip[0]/L, uy=tip[1]/L, s=Math.min(11, L), bx=tip[0]-ux*s, by=tip[1]-uy*s;
  e.setAttribute("points", [tip[0],tip[1], bx-uy*s*0.45,by+ux*s*0.45, bx+uy*s*0.45,by-ux*s*0.45].join(" ")); }
function label(sel, P){ var e=q(sel); e.setAttribute("x", P[0]+(P[0]>=0?6:-16)); e.setAttribute("y", P[1]+(P[1]>0?16:-6)); }
function choice(){ for(var i=0;i<radios.length;i++) if(radios[i].checked) return radios[i].value; return "own"; }
function verdict(th){ if(th===null) return "k is the zero arrow: it has no direction and no shadow, so q \u00b7 k = 0";
  if(Math.abs(th-90)<0.5) return "k stands at right angles to q: no shadow, so q \u00b7 k = 0";
  return th<90 ? "k's shadow falls along q, so q \u00b7 k is positive" : "k's shadow falls behind q, so q \u00b7 k is negative"; }
function update(){
  var qv=D.q, c=choice(), kv, aq=Math.atan2(qv[1],qv[0]);
  var th=parseFloat(sT.value), lk=parseFloat(sK.value);
  if(c==="own"){ var ak=aq+th*Math.PI/180; kv=[lk*Math.cos(ak), lk*Math.sin(ak)]; }
  else kv=D.K[parseInt(c,10)];
  var dot=qv[0]*kv[0]+qv[1]*kv[1], LQ=Math.hypot(qv[0],qv[1]), LK=Math.hypot(kv[0],kv[1]);
  var u=[qv[0]/LQ, qv[1]/LQ], sh=dot/LQ, foot=[sh*u[0], sh*u[1]], ang=null, cos=null;
  if(LK>1e-12){ cos=Math.max(-1,Math.min(1,dot/(LQ*LK))); ang=Math.acos(cos)*180/Math.PI; }
  var O=[0,0], Qp=pt(qv), Kp=pt(kv), F=pt(foot);
  line(".attnfig-qline", pt([-4.4*u[0],-4.4*u[1]]), pt([4.4*u[0],4.4*u[1]]));
  line(".attnfig-q", O, Qp); head(".attnfig-qhead", Qp);
  line(".attnfig-k", O, Kp); head(".attnfig-khead", Kp);
  line(".attnfig-shadow", O, F); line(".attnfig-drop", Kp, F);
  label(".attnfig-qlabel", Qp); label(".attnfig-klabel", Kp);
  var sl=q(".attnfig-slabel"); sl.setAttribute("x", F[0]/2+(u[1]>=0?8:-8)); sl.setAttribute("y", F[1]/2+18);
  set(".attnfig-theta-out", th+"\u00b0"); set(".attnfig-klen-out", String(lk));
  sT.setAttribute("aria-valuetext", th+" degrees"); sK.setAttribute("aria-valuetext", String(lk));
  set(".attnfig-qvec", f2(qv[0])+", "+f2(qv[1])); set(".attnfig-kvec", f2(kv[0])+", "+f2(kv[1]));
  set(".attnfig-dot", f2(dot)); set(".attnfig-lq", f2(LQ)); set(".attnfig-lk", f2(LK));
  set(".attnfig-th", ang===null ? "\u2014" : ang.toFixed(1)+"\u00b0"); set(".attnfig-cos", cos===null ? "\u2014" : f2(cos));
  set(".attnfig-shadowlen", f2(sh)); set(".attnfig-product", f2(LQ*sh)); set(".attnfig-verdict", verdict(ang));
  set(".attnfig-desc", "Arrow q and arrow k from the origin"+(ang===null?"":", angle "+ang.toFixed(1)+" degrees")+"; q \u00b7 k = "+f2(dot));
}
radios.forEach(function(r){ r.addEventListener("change", update); });
[sT,sK].forEach(function(s){ s.addEventListener("input", function(){ radios[radios.length-1].checked=true; update(); }); });
update();
