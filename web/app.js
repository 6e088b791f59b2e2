/* web/app.js: the live page's script (league serves it at /app.js; the
 * files of web/ are embedded into the binary at build time). It polls
 * /status, /ratings and /nashconv every 2 s, and /payoff every 2 s or
 * every ten times what the last one cost to fetch and parse, whichever is
 * longer (the matrix of 1,000 players is 15 MB of JSON); it draws the
 * payoff matrix as a canvas heatmap (web/heatmap.js), the rating ladder
 * and NashConv over time. */
"use strict";
function el(t,txt){var e=document.createElement(t);if(txt!==undefined)e.textContent=txt;return e;}
var roles={};
var SHORT={main:"main",main_exploiter:"mexp",league_exploiter:"lexp",self_play:"self"};
function label(id){return typeof Heatmap!=="undefined"?Heatmap.label(id):id+" "+(roles[id]||"hist");}
function meta(s){roles={};(s.learners||[]).forEach(function(l){roles[l.id]=SHORT[l.role]||l.role;});document.getElementById("title").textContent="league "+(s.league||"")+" ("+(s.env||"")+")";
var parts=["up "+(s.uptime_s||0).toFixed(0)+" s","sessions "+((s.connections||{}).ready||0)];
["jobs_in_flight","jobs_done","env_steps","players","snapshots","env_steps_per_s"].forEach(function(k){if(s[k]!==undefined)parts.push(k.replace(/_/g," ")+" "+s[k]);});
if(s.draining)parts.push("draining");document.getElementById("meta").textContent=parts.join(" \u00b7 ");}
/* The ladder: rank, player, rating (Elo fit, or Plackett-Luce for N
 * seats or teams: "model"), its interval, online Elo, games, meta-Nash
 * weight and, when /ratings carries it, the alpha-Rank mass, from
 * /ratings (highest rating first); one table per population (seat
 * role) when the league has several, each ranked on its own. */
function mass(x){return x===0?"0":x>=0.001?x.toFixed(3):x.toExponential(1);}
function num(x,d){return typeof x==="number"?x.toFixed(d):"-";}
function pops(r){var p={};(r.ratings||[]).forEach(function(x){p[x.pop||0]=1;});return Object.keys(p).map(Number).sort(function(a,b){return a-b;});}
function rungs(t,list,ar){var h=el("tr");["#","player","rating","95% CI","elo","games","nash"].concat(ar?["\u03b1-rank"]:[]).forEach(function(c){h.appendChild(el("th",c));});t.appendChild(h);
list.forEach(function(p,k){var tr=el("tr");tr.className="rung";
/* the fit's 95% interval: 1.96 standard errors (Elo: from the Fisher
 * information of the player's own games; Plackett-Luce: the inverse
 * Hessian's) */
var ci=typeof p.rating_se==="number"?"\u00b1"+(1.96*p.rating_se).toFixed(1):"-";
var cells=[String(k+1),label(p.id),num(p.rating,1),ci,p.elo.toFixed(1),String(Math.round(p.games)),p.nash.toFixed(3)];
if(ar)cells.push(typeof p.alpha_rank==="number"?mass(p.alpha_rank):"-");
cells.forEach(function(c){tr.appendChild(el("td",c));});
if(p.nash>0)tr.className+=" nash";t.appendChild(tr);});}
function ladder(r){var box=document.getElementById("ladder");box.textContent="";
var ar=r.alpha_rank&&typeof r.alpha_rank==="object",ps=pops(r);
ps.forEach(function(q){var list=(r.ratings||[]).filter(function(x){return (x.pop||0)===q;});
if(ps.length>1){var c=el("div","population "+q+" ("+list.length+" players)");c.className="pophead";box.appendChild(c);}
var t=el("table");t.className="ladder";t.setAttribute("data-pop",String(q));rungs(t,list,ar);box.appendChild(t);});
var model=r.model==="plackett-luce"?"ratings: Plackett-Luce fit of the newest "+r.episodes+" episodes (ranked games of teams; - : not in them)":"ratings: Elo fit";
var note=r.nash_gap>=0?(r.meta==="bimatrix"?"meta-Nash of the two roles' bimatrix, each role's weights summing to 1, eps "+r.nash_gap:"meta-Nash duality gap "+r.nash_gap):"meta-Nash not computed (too many players"+(ps.length>2?", or more than two roles)":")");
if(ar)note+=" \u00b7 \u03b1-Rank"+(r.meta==="bimatrix"?" (one population per role)":"")+": alpha "+r.alpha_rank.alpha+", population "+r.alpha_rank.population;
else if(r.alpha_rank===null)note+=" \u00b7 \u03b1-Rank not computed (too many players)";
document.getElementById("gap").textContent=note;document.getElementById("model").textContent=model;}
/* One small heatmap per pair of populations (rows: population a, columns:
 * b) when the league has several: the measure of each cell (mean return
 * under measure return, else win rate), grey where never met; hover: both
 * sides' mean returns and the games. Each canvas says what it drew in
 * its data- attributes (rows, cols, cells). */
function pairMaps(pay,r){var box=document.getElementById("pairs");box.textContent="";var ps=pops(r);if(ps.length<2||!pay)return;
var pop={};(r.ratings||[]).forEach(function(x){pop[x.id]=x.pop||0;});
var idx={};pay.players.forEach(function(id,i){idx[id]=i;});
var ret=pay.measure==="return"&&pay.mean_return,R=pay.return_scale||1,tip=document.getElementById("htip");
ps.forEach(function(a){ps.forEach(function(b){if(a>b)return;
var rows=pay.players.filter(function(id){return pop[id]===a;}),cols=pay.players.filter(function(id){return pop[id]===b;});
var met=0;rows.forEach(function(i){cols.forEach(function(j){if(pay.games[idx[i]][idx[j]]>0)met++;});});
if(!met||!rows.length||!cols.length)return;
var cs=Math.max(4,Math.min(24,Math.floor(320/Math.max(rows.length,cols.length))));
var wrap=el("div");wrap.className="pair";wrap.appendChild(el("div","population "+a+" (rows) vs "+b+" (columns): "+(ret?"row's mean return":"row's win rate")));
var cv=el("canvas");cv.width=cols.length*cs;cv.height=rows.length*cs;cv.className="pairmap";
var g=cv.getContext("2d"),cells=0;
rows.forEach(function(i,y){cols.forEach(function(j,x){var gm=pay.games[idx[i]][idx[j]],v;
if(gm>0){v=ret?(pay.mean_return[idx[i]][idx[j]]/R+1)/2:pay.win_rate[idx[i]][idx[j]];v=Math.max(0,Math.min(1,v));
g.fillStyle="rgb("+Math.round(255*(1-v))+","+Math.round(200-80*Math.abs(v-0.5))+","+Math.round(255*v)+")";cells++;}else g.fillStyle="#ccc";
g.fillRect(x*cs,y*cs,cs-(cs>6?1:0),cs-(cs>6?1:0));});});
cv.setAttribute("data-rows",String(rows.length));cv.setAttribute("data-cols",String(cols.length));cv.setAttribute("data-cells",String(cells));cv.setAttribute("data-pair",a+","+b);
cv.onmousemove=function(e){var bb=cv.getBoundingClientRect(),x=Math.floor((e.clientX-bb.left)/cs),y=Math.floor((e.clientY-bb.top)/cs);
if(x<0||y<0||y>=rows.length||x>=cols.length){tip.style.display="none";return;}
var i=idx[rows[y]],j=idx[cols[x]],gm=pay.games[i][j],s=label(rows[y])+" vs "+label(cols[x])+": ";
if(!(gm>0))s+="never met";else if(ret)s+="mean return "+pay.mean_return[i][j].toFixed(3)+" (the column's "+(pay.mean_return[j][i]===null?"-":pay.mean_return[j][i].toFixed(3))+") over "+gm.toFixed(1)+" games (decayed)";
else s+="win rate "+pay.win_rate[i][j].toFixed(3)+" over "+gm.toFixed(1)+" games (decayed)";
tip.textContent=s;tip.style.display="block";tip.style.left=(e.clientX+window.scrollX+14)+"px";tip.style.top=(e.clientY+window.scrollY+14)+"px";};
cv.onmouseleave=function(){tip.style.display="none";};
wrap.appendChild(cv);box.appendChild(wrap);});});}
/* NashConv over time (/nashconv), log scale: one line and its points per
 * series; nothing where the game has no exact evaluator. */
var SERIES=[["nashconv_main","#b2182b"],["nashconv_league","#2166ac"],["nashconv_avg","#1b7837"],["nashconv_oracle_mix","#999"]];
var NS="http://www.w3.org/2000/svg";
function svg(t,a){var e=document.createElementNS(NS,t);for(var k in a)e.setAttribute(k,a[k]);return e;}
function chart(pts){var box=document.getElementById("nc"),note=document.getElementById("ncnote");box.textContent="";
if(!pts.length){note.textContent="no NashConv points (the game has no exact evaluator, or none is stored yet)";return;}
var W=640,H=220,L=48,R=10,T=10,B=28,x0=Infinity,x1=-Infinity,y0=Infinity,y1=-Infinity;
pts.forEach(function(p){x0=Math.min(x0,p.seconds);x1=Math.max(x1,p.seconds);SERIES.forEach(function(s){var v=p[s[0]];if(typeof v==="number"&&v>0){y0=Math.min(y0,Math.log10(v));y1=Math.max(y1,Math.log10(v));}});});
if(!(y1>=y0)){note.textContent="no positive NashConv to plot";return;}
if(x1===x0)x1=x0+1;y0=Math.floor(y0);y1=Math.max(Math.ceil(y1),y0+1);
function X(v){return L+(v-x0)/(x1-x0)*(W-L-R);}function Y(v){return T+(y1-Math.log10(v))/(y1-y0)*(H-T-B);}
var g=svg("svg",{width:W,height:H,viewBox:"0 0 "+W+" "+H});
for(var e=y0;e<=y1;e++){var y=T+(y1-e)/(y1-y0)*(H-T-B);g.appendChild(svg("line",{x1:L,x2:W-R,y1:y,y2:y,stroke:"#ddd"}));var t=svg("text",{x:L-4,y:y+4,"text-anchor":"end","font-size":"11"});t.textContent="1e"+e;g.appendChild(t);}
var xt=svg("text",{x:W-R,y:H-8,"text-anchor":"end","font-size":"11"});xt.textContent=x1.toFixed(0)+" s";g.appendChild(xt);
var legend=[];SERIES.forEach(function(s){var d="";pts.forEach(function(p){var v=p[s[0]];if(typeof v==="number"&&v>0){d+=(d?" L":"M")+X(p.seconds).toFixed(1)+" "+Y(v).toFixed(1);g.appendChild(svg("circle",{"class":"pt",cx:X(p.seconds),cy:Y(v),r:2.5,fill:s[1]}));}});
if(d){g.appendChild(svg("path",{d:d,fill:"none",stroke:s[1],"stroke-width":1.5}));legend.push(s[0].replace("nashconv_",""));}});
box.appendChild(g);note.textContent=pts.length+(pts.length===1?" point":" points")+", log scale: "+legend.join(", ")+" (league eval DIR)";}
function json(u){return fetch(u).then(function(r){if(!r.ok)throw new Error(u+": HTTP "+r.status);return r.json();});}
var payoffAt=-Infinity,payoffEvery=2000;
/* The moment the time slider chose (views.js): null for now, else a
 * decision-log position; /payoff and /ratings then show the league as it
 * was (?at=), fetched once per moment. */
window.leagueAt=null;
var shownAt=null,ratingsKept=null;
function atURL(u){return window.leagueAt===null?u:u+"?at="+window.leagueAt;}
function past(){return window.leagueAt!==null&&window.leagueAt===shownAt;}
/* /payoff when it is due, else null. */
function payoffDue(){if(window.leagueAt!==shownAt)payoffAt=-Infinity;
if(past()||performance.now()-payoffAt<payoffEvery)return Promise.resolve(null);
var t0=performance.now();return json(atURL("/payoff")).then(function(p){var t=performance.now();
payoffEvery=Math.max(2000,10*(t-t0));payoffAt=t;return p;});}
function ratingsNow(){if(past()&&ratingsKept)return Promise.resolve(ratingsKept);
return json(atURL("/ratings")).then(function(r){ratingsKept=r;return r;});}
function poll(){var asked=window.leagueAt;Promise.all([json("/status"),payoffDue(),ratingsNow(),json("/nashconv")])
.then(function(a){shownAt=asked;meta(a[0]);if(a[1]){Heatmap.update(a[1],a[2]);pairMaps(a[1],a[2]);}ladder(a[2]);chart(a[3]);document.getElementById("err").textContent="";})
.catch(function(e){document.getElementById("err").textContent=String(e);})
.then(function(){setTimeout(poll,2000);});}
poll();
