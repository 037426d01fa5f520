var sl=q(".attnfig-t"), rowradios=qa(".attnfig-row"), paths=qa(".attnfig-slice"), plabels=qa(".attnfig-slabel");
var ss=qa(".attnfig-s"), ws=qa(".attnfig-w"), bars=qa(".attnfig-bar");
function pie(w){ var r=80, a=0, out=[];
  w.forEach(function(x,j){ var b=a+2*Math.PI*x, mid=a+Math.PI*x;
    if(x>=1-1e-9) out.push("M 0 "+(-r).toFixed(3)+" A "+r+" "+r+" 0 1 1 0 "+r.toFixed(3)+" A "+r+" "+r+" 0 1 1 0 "+(-r).toFixed(3)+" Z");
    else out.push("M 0 0 L "+(r*Math.sin(a)).toFixed(3)+" "+(-r*Math.cos(a)).toFixed(3)+" A "+r+" "+r+" 0 "+(b-a>Math.PI?1:0)+" 1 "+(r*Math.sin(b)).toFixed(3)+" "+(-r*Math.cos(b)).toFixed(3)+" Z");
    var t=plabels[j]; t.setAttribute("x", (0.62*r*Math.sin(mid)).toFixed(3)); t.setAttribute("y", (-0.62*r*Math.cos(mid)+5).toFixed(3));
    t.style.display = x>=0.06 ? "" : "none";
    a=b; });
  return out; }
function leaders(w){ var m=Math.max.apply(null,w), top=[];
  w.forEach(function(x,j){ if(m-x<1e-9) top.push(j); });
  if(top.length===1) return "largest weight "+f2(w[top[0]])+", on k"+top[0]+" \u201c"+D.labels[top[0]]+"\u201d";
  return "a tie: "+top.length+" keys share the largest weight, "+f2(m)+" ("+top.map(function(j){ return "k"+j+" \u201c"+D.labels[j]+"\u201d"; }).join(", ")+")"; }
function row(){ for(var i=0;i<rowradios.length;i++) if(rowradios[i].checked) return i; return 0; }
function update(){
  var t=parseFloat(sl.value), s=D.rows[row()].map(function(x){ return t*x; }), w=softmax(s), sum=0;
  w.forEach(function(x){ sum+=x; });
  pie(w).forEach(function(d,j){ paths[j].setAttribute("d", d); });
  s.forEach(function(x,j){ ss[j].textContent=f2(x); ws[j].textContent=f2(w[j]); bars[j].style.width=(60*w[j]).toFixed(1)+"px"; });
  set(".attnfig-t-out", String(t)); sl.setAttribute("aria-valuetext", "t = "+t);
  set(".attnfig-temp", t===0 ? "\u221e" : (1/t).toFixed(2));
  set(".attnfig-leader", leaders(w)); set(".attnfig-sum", f2(sum));
  set(".attnfig-desc", "Pie of the softmax shares at stretch "+t+"; "+leaders(w));
}
sl.addEventListener("input", update);
rowradios.forEach(function(r){ r.addEventListener("change", update); });
update();
