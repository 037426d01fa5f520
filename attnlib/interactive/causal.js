var sr=qa(".attnfig-sentence"), ls=q(".attnfig-layer"), hs=q(".attnfig-head"), table=q(".attnfig-atable");
function picked(list){ for(var i=0;i<list.length;i++) if(list[i].checked) return list[i].value; return list[0].value; }
function cell(tag, text, style){ var c=document.createElement(tag);
  if(style){ var s=document.createElement("span"); s.className="w"; s.setAttribute("style", style); s.textContent=text; c.appendChild(s); }
  else c.textContent=text; return c; }
function mean(xs){ var t=0; xs.forEach(function(x){ t+=x; }); return t/xs.length; }
function update(){
  var s=parseInt(picked(sr),10), l=parseInt(ls.value,10), h=parseInt(hs.value,10);
  var toks=D.tokens[s], st=D.styles[s], n=toks.length, A=D.A[s][l][h].map(function(r){ return r.map(function(x){ return x/100; }); });
  q(".attnfig-layer-out").textContent=l; ls.setAttribute("aria-valuetext", String(l));
  q(".attnfig-head-out").textContent=h; hs.setAttribute("aria-valuetext", String(h));
  while(table.firstChild) table.removeChild(table.firstChild);
  var top=document.createElement("tr"); top.appendChild(cell("th", "query \\ key"));
  toks.forEach(function(t,j){ top.appendChild(cell("th", t, st[j])); }); table.appendChild(top);
  toks.forEach(function(t,i){ var r=document.createElement("tr"); r.appendChild(cell("th", t, st[i]));
    for(var j=0;j<n;j++){ var c;
      if(j<=i){ c=cell("td", f2(A[i][j])); c.className="attnfig-a"; } else { c=cell("td", "·"); c.className="attnfig-hid"; }
      r.appendChild(c); }
    table.appendChild(r); });
  var w=[]; for(var i=1;i<n;i++) w.push(i);
  var m=[mean(w.map(function(i){ return A[i][i-1]; })), mean(w.map(function(i){ return A[i][i]; })),
         mean(w.map(function(i){ return A[i][0]; }))];
  var names=["previous token", "itself", "first token"];
  set(".attnfig-say", "layer "+l+", head "+h+" (key/value head "+Math.floor(h/3)+"), weight on: "+names.map(function(k,j){ return k+" "+f2(m[j]); }).join(", "));
}
sr.forEach(function(r){ r.addEventListener("change", update); });
ls.addEventListener("input", update); hs.addEventListener("input", update);
update();
