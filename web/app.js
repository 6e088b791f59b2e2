/* web/app.js: the live page's script (league serves it at /app.js; the
 * files of web/ are embedded into the binary at build time). It polls
 * /status, /payoff and /ratings every 2 s and draws the payoff matrix as
 * a heatmap and the rating ladder. */
"use strict";
function color(x){var r,g,b;if(x<0.5){var t=x/0.5;r=215;g=Math.round(48+t*(255-48));b=Math.round(39+t*(255-39));}
else{var u=(x-0.5)/0.5;r=Math.round(255-u*(255-69));g=Math.round(255-u*(255-117));b=Math.round(255-u*(255-180));}
return "rgb("+r+","+g+","+b+")";}
function el(t,txt){var e=document.createElement(t);if(txt!==undefined)e.textContent=txt;return e;}
var roles={};
var SHORT={main:"main",main_exploiter:"mexp",league_exploiter:"lexp",self_play:"self"};
function label(id){return id+" "+(roles[id]||"hist");}
function draw(p){var m=document.getElementById("m");m.textContent="";
var ids=p.players||[],wr=p.win_rate||[],gm=p.games||[];
var h=el("tr");h.appendChild(el("th",""));ids.forEach(function(id){h.appendChild(el("th",label(id)));});m.appendChild(h);
ids.forEach(function(id,i){var tr=el("tr");tr.appendChild(el("th",label(id)));
ids.forEach(function(_,j){var td=el("td");td.className="c";var x=(wr[i]||[])[j],g=(gm[i]||[])[j];
if(typeof x==="number"){td.style.background=g>0?color(x):"#eee";td.textContent=g>0?x.toFixed(2):"";
td.title=label(id)+" vs "+label(ids[j])+": win rate "+x.toFixed(3)+" over "+(g||0).toFixed(1)+" games";}
tr.appendChild(td);});m.appendChild(tr);});}
function meta(s){roles={};(s.learners||[]).forEach(function(l){roles[l.id]=SHORT[l.role]||l.role;});document.getElementById("title").textContent="league "+(s.league||"")+" ("+(s.env||"")+")";
var parts=["up "+(s.uptime_s||0).toFixed(0)+" s","sessions "+((s.connections||{}).ready||0)];
["jobs_in_flight","jobs_done","env_steps","players","snapshots","env_steps_per_s"].forEach(function(k){if(s[k]!==undefined)parts.push(k.replace(/_/g," ")+" "+s[k]);});
if(s.draining)parts.push("draining");document.getElementById("meta").textContent=parts.join(" \u00b7 ");}
/* The ladder: rank, player, rating (Elo fit), online Elo, games, meta-Nash
 * weight, from /ratings (highest rating first). */
function ladder(r){var t=document.getElementById("ladder");t.textContent="";
var h=el("tr");["#","player","rating","elo","games","nash"].forEach(function(c){h.appendChild(el("th",c));});t.appendChild(h);
(r.ratings||[]).forEach(function(p,k){var tr=el("tr");tr.className="rung";
[String(k+1),label(p.id),p.rating.toFixed(1),p.elo.toFixed(1),String(Math.round(p.games)),p.nash.toFixed(3)].forEach(function(c){tr.appendChild(el("td",c));});
if(p.nash>0)tr.className+=" nash";t.appendChild(tr);});
document.getElementById("gap").textContent=r.nash_gap>=0?"meta-Nash duality gap "+r.nash_gap:"meta-Nash not computed (too many players)";}
function json(u){return fetch(u).then(function(r){if(!r.ok)throw new Error(u+": HTTP "+r.status);return r.json();});}
function poll(){Promise.all([json("/status"),json("/payoff"),json("/ratings")])
.then(function(a){meta(a[0]);draw(a[1]);ladder(a[2]);document.getElementById("err").textContent="";})
.catch(function(e){document.getElementById("err").textContent=String(e);})
.then(function(){setTimeout(poll,2000);});}
poll();
