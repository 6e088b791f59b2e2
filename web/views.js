/* web/views.js: the live page's views of the run over time and of its
 * structure (league serves it at /views.js): throughput and each
 * learner's PPO statistics (/series), each learner's matchmaking mix
 * (/series "mix": league jobs so far by the brain's kind), the lineage
 * of players and snapshots (/lineage) and the jobs in flight (/jobs).
 * Polls every 2 s, apart from app.js (the heatmap, ladder, NashConv). */
"use strict";
(function(){
var NSV="http://www.w3.org/2000/svg";
var COLORS=["#1f77b4","#ff7f0e","#2ca02c","#d62728","#9467bd","#8c564b","#e377c2","#7f7f7f","#bcbd22"];
function node(t,a){var e=document.createElementNS(NSV,t);for(var k in a)e.setAttribute(k,a[k]);return e;}
function tag(t,txt){var e=document.createElement(t);if(txt!==undefined)e.textContent=txt;return e;}
function fmt(v){if(typeof v!=="number"||!isFinite(v))return "-";var a=Math.abs(v);
if(Number.isInteger(v)&&a<1e3)return String(v);
return a>=1e6?(v/1e6).toFixed(2)+"M":a>=1e3?(v/1e3).toFixed(1)+"k":a>=1||a===0?v.toFixed(2):a>=0.01?v.toFixed(3):v.toExponential(1);}
/* One small chart: lines of series [{name, ys}] over xs (seconds),
 * linear y from the data's range; a point per value (class "pt"). */
function small(title,xs,series){var W=300,H=150,L=50,R=8,T=18,B=20;
var x0=Infinity,x1=-Infinity,y0=Infinity,y1=-Infinity;
xs.forEach(function(x,i){series.forEach(function(s){var v=s.ys[i];if(typeof v==="number"&&isFinite(v)){x0=Math.min(x0,x);x1=Math.max(x1,x);y0=Math.min(y0,v);y1=Math.max(y1,v);}});});
var g=node("svg",{width:W,height:H,viewBox:"0 0 "+W+" "+H,"class":"small"});
var tt=node("text",{x:L,y:12,"font-size":"12","font-weight":"600"});tt.textContent=title;g.appendChild(tt);
if(!(x1>=x0)){var n=node("text",{x:L,y:H/2,"font-size":"11",fill:"#777"});n.textContent="no points yet";g.appendChild(n);return g;}
if(x1===x0)x1=x0+1;if(y1===y0){y0-=0.5;y1+=0.5;}
function X(v){return L+(v-x0)/(x1-x0)*(W-L-R);}function Y(v){return T+(y1-v)/(y1-y0)*(H-T-B);}
/* labels as precise as the range needs: a narrow range of large values
 * (entropy 1.0985..1.0986) must not read as one number */
var span=y1-y0,dec=Math.min(6,Math.max(0,Math.ceil(-Math.log10(span))+1));
function lab(v){var a=Math.abs(v);return a>=1e3||(a<0.01&&a>0&&span<0.01*a+1e-12)?fmt(v):a>=0.01||v===0?v.toFixed(Math.max(dec,a>=1?0:2)):fmt(v);}
[y0,(y0+y1)/2,y1].forEach(function(v){var y=Y(v);g.appendChild(node("line",{x1:L,x2:W-R,y1:y,y2:y,stroke:"#e2e2e2"}));
var t=node("text",{x:L-3,y:y+4,"text-anchor":"end","font-size":"10"});t.textContent=lab(v);g.appendChild(t);});
var xt=node("text",{x:W-R,y:H-5,"text-anchor":"end","font-size":"10"});xt.textContent=x1.toFixed(0)+" s";g.appendChild(xt);
series.forEach(function(s,k){var d="",c=s.color||COLORS[k%COLORS.length];
xs.forEach(function(x,i){var v=s.ys[i];if(typeof v!=="number"||!isFinite(v))return;
d+=(d?" L":"M")+X(x).toFixed(1)+" "+Y(v).toFixed(1);
g.appendChild(node("circle",{"class":"pt",cx:X(x).toFixed(1),cy:Y(v).toFixed(1),r:1.6,fill:c}));});
if(d)g.appendChild(node("path",{d:d,fill:"none",stroke:c,"stroke-width":1.3}));
if(series.length>1){var lt=node("text",{x:W-R,y:12+12*k,"text-anchor":"end","font-size":"10",fill:c});lt.textContent=s.name;g.appendChild(lt);}});
return g;}
/* Throughput: env steps/s, jobs/s and the learners' rows/s. */
function throughput(lg){var box=document.getElementById("tp"),note=document.getElementById("tpnote");box.textContent="";
if(!lg||!lg.t||!lg.t.length){note.textContent="no throughput points yet (one every 5 s)";return;}
[["env_steps_per_s","env steps/s"],["jobs_per_s","jobs/s"],["samples_per_s","learner rows/s"]].forEach(function(f){box.appendChild(small(f[1],lg.t,[{name:f[1],ys:lg[f[0]]}]));});
note.textContent=lg.t.length+" points, every 5 s of league time";}
/* Each learner's statistics: a chart per field, a line per learner. */
var LFIELDS=[["pg_loss","policy loss"],["value_loss","value loss"],["entropy","entropy"],["approx_kl","KL"],["lr","learning rate"],["grad_norm","gradient norm"]];
function learners(ls,roles){var box=document.getElementById("ls"),note=document.getElementById("lsnote");box.textContent="";
var ids=Object.keys(ls||{});if(!ids.length){note.textContent="no learner statistics yet (a point per pushed version)";return;}
LFIELDS.forEach(function(f){var xs=[],series=[];
/* each learner's own times: merge them on one axis, gaps as null */
ids.forEach(function(id){ls[id].t.forEach(function(t){xs.push(t);});});
xs=xs.sort(function(a,b){return a-b;}).filter(function(x,i,a){return i===0||x!==a[i-1];});
ids.forEach(function(id){var m={};ls[id].t.forEach(function(t,i){m[t]=ls[id][f[0]][i];});
series.push({name:id+" "+(roles[id]||""),ys:xs.map(function(x){return x in m?m[x]:null;})});});
box.appendChild(small(f[1],xs,series));});
note.textContent=ids.length+" learner(s); a point per pushed version";}
/* The mix: each learner's league jobs by kind, as shares of a bar. */
function mix(mx,roles){var box=document.getElementById("mix");box.textContent="";
var ids=Object.keys(mx||{});if(!ids.length){box.appendChild(tag("div","no league jobs yet"));return;}
var kinds=Object.keys(mx[ids[0]]).filter(function(k){return k!=="t";});
ids.forEach(function(id){var s=mx[id],last=s.t.length-1,tot=0;kinds.forEach(function(k){tot+=s[k][last]||0;});
var row=tag("div");row.className="mixrow";row.appendChild(tag("span",id+" "+(roles[id]||"")));
var bar=tag("div");bar.className="bar";
kinds.forEach(function(k,i){var n=s[k][last]||0;if(!n)return;var seg=tag("div");seg.className="seg";
seg.style.width=(100*n/tot).toFixed(2)+"%";seg.style.background=COLORS[i%COLORS.length];
seg.title=k+": "+n+" jobs ("+(100*n/tot).toFixed(1)+"%)";if(n/tot>0.08)seg.textContent=k;bar.appendChild(seg);});
row.appendChild(bar);row.appendChild(tag("span",tot+" jobs"));box.appendChild(row);});}
/* The lineage: who froze which snapshot, from which earlier one; the
 * first page of /lineage (1,000 players; the learners have the lowest
 * ids), then how many more there are. */
function lineage(l){var t=document.getElementById("lineage");t.textContent="";
var h=tag("tr");["id","role","status","parent","prev","version","steps","snapshots","resets"].forEach(function(c){h.appendChild(tag("th",c));});t.appendChild(h);
(l.players||[]).forEach(function(p){var tr=tag("tr");tr.className="lin";
[p.id,p.role,p.status,p.parent===null?"":p.parent,p.prev===null?"":p.prev,p.version,fmt(p.steps),p.snapshots,p.resets].forEach(function(c){tr.appendChild(tag("td",String(c)));});t.appendChild(tr);});
if(l.truncated){var tr=tag("tr");tr.appendChild(tag("td",(l.total-l.players.length)+" more players"));t.appendChild(tr);}}
/* The jobs in flight (the daemon's lease table; inspect: open jobs):
 * the first page of /jobs (50, oldest first), with the total. */
function jobs(j){var t=document.getElementById("jobs"),note=document.getElementById("jobsnote");t.textContent="";
var list=j.jobs||[],h=tag("tr");["job","kind","state","seats","episodes","lease left"].forEach(function(c){h.appendChild(tag("th",c));});t.appendChild(h);
list.forEach(function(x){var tr=tag("tr");tr.className="job";
/* seats by team (members joined by +, teams by vs), each seat's role
 * (population) after it when the game has several */
var ss=x.seats||[],multiRole=ss.some(function(s){return s.role>0;}),teams=[],byTeam={};
ss.forEach(function(s,i){var t=s.team===undefined?i:s.team,txt=(s.baseline?"baseline "+s.baseline:s.player+"/v"+s.version+(s.learning?"*":""))+(multiRole?" [r"+s.role+"]":"");
if(!(t in byTeam)){byTeam[t]=[];teams.push(t);}byTeam[t].push(txt);});
var seats=teams.map(function(t){return byTeam[t].join(" + ");}).join(" vs ");
if(!x.seats)seats=x.learner+"/v"+x.learner_version+"* vs "+x.opponent+"/v"+x.opponent_version;
[x.id,x.kind,x.state||"open",seats,x.episodes,x.lease_left_s===undefined?"":x.lease_left_s.toFixed(1)+" s"].forEach(function(c){tr.appendChild(tag("td",String(c)));});t.appendChild(tr);});
var total=j.total===undefined?list.length:j.total;
note.textContent=total+" job(s)"+(j.truncated?", the first "+list.length+" shown":"")+"; * marks a learning seat, + joins a team's seats, [rN] is a seat's role";}
/* The time slider: a stop per throughput point (its decision-log
 * position, log_seq), the last one "now". Sets window.leagueAt, which
 * app.js's /payoff and /ratings follow; #at=N in the address starts
 * there. */
var slid=null; /* the log position chosen, null: now */
(function(){var m=/(?:^#|&)at=(\d+)/.exec(location.hash);if(m){slid=+m[1];window.leagueAt=slid;}})();
function setLabel(txt){document.getElementById("slidertime").textContent=txt;}
function timeSlider(lg){var s=document.getElementById("slider");
var seq=(lg&&lg.log_seq)||[],t=(lg&&lg.t)||[],n=seq.length;
s.max=String(n);
if(slid===null){s.value=String(n);setLabel("now");}
else{var k=seq.indexOf(slid);s.value=String(k<0?0:k);
setLabel("at "+(k<0?"log position "+slid:t[k].toFixed(0)+" s (log position "+slid+")"));}
s.oninput=function(){var i=+s.value;
slid=i>=n||seq[i]===null?null:seq[i];window.leagueAt=slid;
setLabel(slid===null?"now":"at "+t[i].toFixed(0)+" s (log position "+slid+")");};
document.getElementById("live").onclick=function(){slid=null;window.leagueAt=null;s.value=String(n);setLabel("now");};}
function get(u){return fetch(u).then(function(r){if(!r.ok)throw new Error(u+": HTTP "+r.status);return r.json();});}
function roleMap(l){var m={};(l.players||[]).forEach(function(p){m[p.id]=p.role;});return m;}
function poll(){Promise.all([get("/series"),get("/lineage?limit=1000"),get("/jobs?limit=50")])
.then(function(a){var roles=roleMap(a[1]);timeSlider(a[0].league);throughput(a[0].league);learners(a[0].learners,roles);mix(a[0].mix,roles);lineage(a[1]);jobs(a[2]);
document.getElementById("verr").textContent="";})
.catch(function(e){document.getElementById("verr").textContent=String(e);})
.then(function(){setTimeout(poll,2000);});}
poll();
})();
