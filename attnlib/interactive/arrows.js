var mv=qa(".attnfig-move"), ot=qa(".attnfig-other"), sx=q(".attnfig-x"), sy=q(".attnfig-y"), svg=q(".attnfig-plane");
var pos={}; D.words.forEach(function(w){ pos[w]=D.start[w].slice(); });
function picked(list){ for(var i=0;i<list.length;i++) if(list[i].checked) return list[i].value; return list[0].value; }
function dir(v){ return Math.atan2(v[1], v[0])*180/Math.PI; }
function between(u, v){ var g=Math.abs(dir(u)-dir(v))%360; return g>180 ? 360-g : g; }
function round1(x){ return Math.round(Math.min(D.high, Math.max(D.low, x))*10)/10; }
function draw(){
  var w=picked(mv), o=picked(ot), v=pos[w], u=pos[o], U=D.unit;
  qa(".attnfig-arrow").forEach(function(g){ var a=pos[g.dataset.word], on=(g.dataset.word===w || g.dataset.word===o);
    var l=g.querySelector("line"), c=g.querySelector("circle"), t=g.querySelector("text");
    l.setAttribute("x2", (a[0]*U).toFixed(2)); l.setAttribute("y2", (-a[1]*U).toFixed(2));
    c.setAttribute("cx", (a[0]*U).toFixed(2)); c.setAttribute("cy", (-a[1]*U).toFixed(2));
    t.setAttribute("x", (a[0]*U+8).toFixed(2)); t.setAttribute("y", (-a[1]*U-6).toFixed(2));
    l.style.opacity = c.style.opacity = on ? "1" : "0.3"; t.style.fontWeight = on ? "700" : "400"; });
  var r=70, a0=dir(v)*Math.PI/180, a1=dir(u)*Math.PI/180, big=0, sweep=((dir(u)-dir(v)+360)%360)<180 ? 0 : 1;
  var arc=q(".attnfig-arc");
  if(Math.hypot(v[0],v[1])<1e-9 || Math.hypot(u[0],u[1])<1e-9) arc.setAttribute("d", "");
  else arc.setAttribute("d", "M "+(r*Math.cos(a0)).toFixed(2)+" "+(-r*Math.sin(a0)).toFixed(2)+" A "+r+" "+r+" 0 "+big+" "+sweep+" "+(r*Math.cos(a1)).toFixed(2)+" "+(-r*Math.sin(a1)).toFixed(2));
  set(".attnfig-name", w); set(".attnfig-vec", f2(v[0])+", "+f2(v[1]));
  set(".attnfig-len", f2(Math.hypot(v[0], v[1]))); set(".attnfig-dir", dir(v).toFixed(1)+"\u00b0");
  set(".attnfig-pair", w+" and "+o); set(".attnfig-between", between(v, u).toFixed(1)+"\u00b0");
  set(".attnfig-x-out", String(v[0])); set(".attnfig-y-out", String(v[1]));
  sx.setAttribute("aria-valuetext", String(v[0])); sy.setAttribute("aria-valuetext", String(v[1]));
  set(".attnfig-desc", "The words as arrows from the origin; "+w+" at ["+f2(v[0])+", "+f2(v[1])+"], angle to "+o+" "+between(v, u).toFixed(1)+" degrees");
}
function sliders(){ var v=pos[picked(mv)]; sx.value=v[0]; sy.value=v[1]; }
mv.forEach(function(r){ r.addEventListener("change", function(){ sliders(); draw(); }); });
ot.forEach(function(r){ r.addEventListener("change", draw); });
sx.addEventListener("input", function(){ pos[picked(mv)][0]=parseFloat(sx.value); draw(); });
sy.addEventListener("input", function(){ pos[picked(mv)][1]=parseFloat(sy.value); draw(); });
var dragging=false;
function drag(e){ var m=svg.getScreenCTM().inverse(), pt=svg.createSVGPoint(); pt.x=e.clientX; pt.y=e.clientY; pt=pt.matrixTransform(m);
  var v=pos[picked(mv)]; v[0]=round1(pt.x/D.unit); v[1]=round1(-pt.y/D.unit); sliders(); draw(); }
svg.addEventListener("pointerdown", function(e){ dragging=true; svg.setPointerCapture(e.pointerId); drag(e); });
svg.addEventListener("pointermove", function(e){ if(dragging) drag(e); });
svg.addEventListener("pointerup", function(){ dragging=false; });
draw();
