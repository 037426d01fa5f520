var sl=q(".attnfig-step"), rects=qa(".attnfig-cell"), texts=qa(".attnfig-ctext"), n=D.A[0].length;
function ink(hex){ var c=[1,3,5].map(function(k){ var v=parseInt(hex.substr(k,2),16)/255; return v<=0.04045 ? v/12.92 : Math.pow((v+0.055)/1.055, 2.4); });
  var L=0.2126*c[0]+0.7152*c[1]+0.0722*c[2]; return (L+0.05)/0.05 >= 1.05/(L+0.05) ? "#000000" : "#ffffff"; }
function update(){
  var s=parseInt(sl.value,10), step=D.steps[s], A=D.A[s];
  q(".attnfig-curve").setAttribute("points", D.points.slice(0, step+1).join(" "));
  var dot=q(".attnfig-now"); dot.setAttribute("cx", (D.x0+step/D.last*D.W).toFixed(2));
  dot.setAttribute("cy", (D.top+(D.hi-Math.log10(D.loss[s]))/(D.hi-D.lo)*D.H).toFixed(2));
  rects.forEach(function(r,k){ var i=Math.floor(k/n), j=k%n;
    if(j>i){ r.setAttribute("fill","none"); texts[k].textContent=""; return; }
    var fill=D.colours[Math.round(100*A[i][j])];
    r.setAttribute("fill", fill); texts[k].style.fill=ink(fill); texts[k].textContent=f2(A[i][j]); });
  set(".attnfig-step-out", String(step)); sl.setAttribute("aria-valuetext", "step "+step);
  set(".attnfig-stepname", String(step)); set(".attnfig-loss", D.loss[s].toExponential(2)); set(".attnfig-prev", f2(D.previous[s]));
  set(".attnfig-ldesc", "The loss over the first "+step+" steps, on a log scale");
  set(".attnfig-hdesc", "The running sentence's A after "+step+" steps, causal mask; the word before gets "+f2(D.previous[s])+" on average");
}
sl.addEventListener("input", update);
update();
