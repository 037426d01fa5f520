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
      if(!D.causal || j<=i){ c=cell("td", f2(A[i][j])); c.className="attnfig-a"; } else { c=cell("td", "·"); c.className="attnfig-hid"; }
      r.appendChild(c); }
    table.appendChild(r); });
  /* the word rows: a causal model's row 0 sees only itself; an encoder's first and last rows are [CLS] and [SEP] */
  var w=[]; for(var i=1;i<(D.causal ? n : n-1);i++) w.push(i);
  var on=D.causal
    ? [["previous token", function(i){ return A[i][i-1]; }], ["itself", function(i){ return A[i][i]; }], ["first token", function(i){ return A[i][0]; }]]
    : [["previous token", function(i){ return A[i][i-1]; }], ["next token", function(i){ return A[i][i+1]; }], ["itself", function(i){ return A[i][i]; }],
       ["[CLS]", function(i){ return A[i][0]; }], ["[SEP]", function(i){ return A[i][n-1]; }]];
  var kv=D.causal ? " (key/value head "+Math.floor(h/D.group)+")" : "";
  set(".attnfig-say", "layer "+l+", head "+h+kv+", weight on: "+on.map(function(p){ return p[0]+" "+f2(mean(w.map(p[1]))); }).join(", "));
}
sr.forEach(function(r){ r.addEventListener("change", update); });
ls.addEventListener("input", update); hs.addEventListener("input", update);
update();
