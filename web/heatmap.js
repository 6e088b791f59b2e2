/* web/heatmap.js: the payoff matrix as a canvas heatmap that stays
 * readable at 1,000+ players (league serves it at /heatmap.js).
 *
 * Shape: the matrix of the shown players (filtered by role, sorted by id,
 * Elo, Nash weight or role) is painted once into an offscreen image of
 * one pixel per cell; a draw copies the visible part of it onto the
 * canvas at the zoom (cell size in pixels) and pan (offset) of the view,
 * then grid lines and row/column labels once cells are big enough to
 * read. So a draw costs the canvas's pixels, not the matrix's cells.
 *
 * Interaction: the wheel zooms around the cursor, a drag pans, the +, -
 * and fit buttons zoom about the centre; hover shows the pair, the win
 * rate, the decayed game count and a 95% Wilson score interval. The sort
 * and the role filter live in the URL's hash (#sort=elo&role=main), so a
 * view can be linked to, and the browser test sets them that way.
 *
 * For tests and benchmarks the canvas carries what it drew:
 * data-draw-ms (the last draw, image included, performance.now()),
 * data-first-ms (from navigation to the first draw), data-n (players
 * shown), data-cells (cells of pairs that met), data-order (the first 64
 * ids in drawn order), data-painted (canvas pixels not the background),
 * data-digest (a hash of the canvas's pixels), data-sort, data-role. */
"use strict";

var Heatmap = (function () {
	var BG = [250, 250, 250];         /* the canvas background (body's) */
	var EMPTY = [230, 230, 230];      /* a pair that never met */
	var LABEL_MIN = 12;               /* cell px from which labels show */
	var GRID_MIN = 6;                 /* cell px from which lines show */
	var MARGIN = 78;                  /* label margin, px, when shown */
	var Z = 1.959964;                 /* 95% two-sided normal quantile */
	var ROLE_ORDER = ["main", "main_exploiter", "league_exploiter",
			  "self_play", "historical"];
	var SHORT = { main: "main", main_exploiter: "mexp",
		      league_exploiter: "lexp", self_play: "self",
		      historical: "hist" };

	var cv, ctx, tip, info, sortSel, roleSel;
	var data = null;      /* /payoff */
	var meta = {};        /* id -> {role, parent, rating, nash, alpha_rank} */
	var order = [];       /* positions into data.players, drawn order */
	var img = null;       /* offscreen canvas, one pixel per cell */
	var cs = 0;           /* cell size, px */
	var ox = 0, oy = 0;   /* view offset into the matrix, px */
	var viewed = false;    /* the view was set once (fit) */
	var hmax = 0;          /* the canvas's height in the HTML */
	var drag = null;
	var palette = null;

	/* Red (row loses) through white to blue (row wins), 256 steps, as
	 * 32-bit pixels in the canvas's byte order (RGBA in memory). */
	function makePalette() {
		var p = new Uint32Array(258);
		for (var k = 0; k < 256; k++) {
			var x = k / 255, r, g, b;
			if (x < 0.5) {
				var t = x / 0.5;
				r = 215 + t * 40; g = 48 + t * 207;
				b = 39 + t * 216;
			} else {
				var u = (x - 0.5) / 0.5;
				r = 255 - u * 186; g = 255 - u * 138;
				b = 255 - u * 75;
			}
			p[k] = pixel(r, g, b);
		}
		p[256] = pixel(EMPTY[0], EMPTY[1], EMPTY[2]);
		p[257] = pixel(BG[0], BG[1], BG[2]);
		return p;
	}

	function pixel(r, g, b) {
		var a = new Uint8ClampedArray([r, g, b, 255]);
		return new Uint32Array(a.buffer)[0];
	}

	function roleOf(id) {
		var m = meta[id];
		return m ? m.role : "historical";
	}

	/* "main", or for a snapshot the role of the player it froze. */
	function familyOf(id) {
		var m = meta[id];
		if (!m)
			return "historical";
		if (m.role === "historical" && m.parent >= 0 && meta[m.parent])
			return meta[m.parent].role;
		return m.role;
	}

	function label(id) {
		var r = roleOf(id);
		if (!meta[id])
			return id + " ?"; /* newer than the last /ratings */
		if (r === "historical")
			return id + " h:" + (SHORT[familyOf(id)] || "?");
		return id + " " + (SHORT[r] || r);
	}

	/* The hash's settings: {sort, role}. */
	function readHash() {
		var o = { sort: "id", role: "" };
		var h = location.hash.replace(/^#/, "");
		h.split("&").forEach(function (kv) {
			var p = kv.split("=");
			if (p[0] === "sort" || p[0] === "role")
				o[p[0]] = decodeURIComponent(p[1] || "");
		});
		return o;
	}

	function writeHash() {
		var h = "sort=" + sortSel.value;
		if (roleSel.value)
			h += "&role=" + encodeURIComponent(roleSel.value);
		if (window.leagueAt !== null && window.leagueAt !== undefined)
			h += "&at=" + window.leagueAt; /* views.js's slider */
		history.replaceState(null, "", "#" + h);
	}

	/* Which ids the filter keeps: "" all; a role name: that role;
	 * "family:R": players of role R and their snapshots. */
	function keeps(id, f) {
		if (!f)
			return true;
		if (f.indexOf("family:") === 0)
			return familyOf(id) === f.slice(7);
		return roleOf(id) === f;
	}

	function rank(role) {
		var k = ROLE_ORDER.indexOf(role);
		return k < 0 ? ROLE_ORDER.length : k;
	}

	function compare(sort) {
		var num = function (id, k) {
			var m = meta[id];
			return m && typeof m[k] === "number" ? m[k] : -Infinity;
		};
		return function (a, b) {
			var x = data.players[a], y = data.players[b], d = 0;
			if (sort === "elo")
				d = num(y, "rating") - num(x, "rating");
			else if (sort === "nash")
				d = num(y, "nash") - num(x, "nash") ||
				    num(y, "rating") - num(x, "rating");
			else if (sort === "alpha_rank")
				d = num(y, "alpha_rank") - num(x, "alpha_rank") ||
				    num(y, "rating") - num(x, "rating");
			else if (sort === "role")
				d = rank(roleOf(x)) - rank(roleOf(y)) ||
				    rank(familyOf(x)) - rank(familyOf(y));
			return d || x - y;
		};
	}

	function makeOrder() {
		var f = roleSel.value, o = [];
		for (var i = 0; i < data.players.length; i++)
			if (keeps(data.players[i], f))
				o.push(i);
		o.sort(compare(sortSel.value));
		order = o;
	}

	/* The offscreen image: one pixel per shown cell. */
	function paint() {
		var n = order.length, cells = 0;
		img = document.createElement("canvas");
		img.width = Math.max(n, 1);
		img.height = Math.max(n, 1);
		if (!n)
			return 0;
		var c = img.getContext("2d"), id = c.createImageData(n, n);
		var px = new Uint32Array(id.data.buffer);
		var wr = data.win_rate, gm = data.games;
		for (var r = 0; r < n; r++) {
			var wrow = wr[order[r]], grow = gm[order[r]];
			var base = r * n;
			for (var k = 0; k < n; k++) {
				var j = order[k];
				if (grow[j] > 0) {
					var q = (wrow[j] * 255 + 0.5) | 0;
					px[base + k] = palette[q];
					cells++;
				} else {
					px[base + k] = palette[256];
				}
			}
		}
		c.putImageData(id, 0, 0);
		return cells;
	}

	function margin() {
		return cs >= LABEL_MIN ? MARGIN : 0;
	}

	/* Zoom that shows every shown player, in a canvas no taller than
	 * the matrix needs (at most its height in the page's HTML). */
	function fit() {
		var n = Math.max(order.length, 1), h = hmax;
		var labelled = Math.min(cv.width - MARGIN, h - MARGIN) / n;
		cs = labelled >= LABEL_MIN ? labelled :
			Math.min(cv.width, h) / n;
		cs = Math.min(cs, 40);
		h = Math.ceil(margin() + n * cs) + 1;
		h = Math.min(hmax, Math.max(200, h));
		if (cv.height !== h)
			cv.height = h;
		ox = oy = 0;
		viewed = true;
	}

	function clampView() {
		var m = margin(), n = order.length;
		var mx = Math.max(0, n * cs - (cv.width - m));
		var my = Math.max(0, n * cs - (cv.height - m));
		ox = Math.min(Math.max(ox, 0), mx);
		oy = Math.min(Math.max(oy, 0), my);
	}

	/* The first and past-the-last visible column and row. */
	function visible(n) {
		return [Math.floor(ox / cs),
			Math.min(n, Math.ceil((ox + cv.width) / cs)),
			Math.floor(oy / cs),
			Math.min(n, Math.ceil((oy + cv.height) / cs))];
	}

	/* White lines between the visible cells. */
	function drawGrid(m, n) {
		var v = visible(n), c0 = v[0], c1 = v[1], r0 = v[2], r1 = v[3];
		var right = Math.min(cv.width, m + n * cs - ox);
		var bottom = Math.min(cv.height, m + n * cs - oy);
		ctx.strokeStyle = "rgba(255,255,255,0.9)";
		ctx.lineWidth = 1;
		ctx.beginPath();
		for (var c = c0; c <= c1; c++) {
			var x = Math.round(m + c * cs - ox) + 0.5;
			ctx.moveTo(x, m);
			ctx.lineTo(x, bottom);
		}
		for (var r = r0; r <= r1; r++) {
			var y = Math.round(m + r * cs - oy) + 0.5;
			ctx.moveTo(m, y);
			ctx.lineTo(right, y);
		}
		ctx.stroke();
	}

	/* Row labels left of the matrix, column labels above it, each kept
	 * to its band. */
	function drawLabels(m, n) {
		var fs = Math.min(12, Math.floor(cs * 0.8));
		var v = visible(n), c0 = v[0], c1 = v[1], r0 = v[2], r1 = v[3];
		ctx.fillStyle = "#222";
		ctx.font = fs + "px system-ui, sans-serif";
		ctx.textBaseline = "middle";
		ctx.save();
		ctx.beginPath();
		ctx.rect(0, m, m, cv.height - m);
		ctx.clip();
		ctx.textAlign = "right";
		for (var r = r0; r < r1; r++)
			ctx.fillText(label(data.players[order[r]]), m - 4,
				     m + (r + 0.5) * cs - oy);
		ctx.restore();
		ctx.save();
		ctx.beginPath();
		ctx.rect(m, 0, cv.width - m, m);
		ctx.clip();
		ctx.textAlign = "left";
		for (var c = c0; c < c1; c++) {
			ctx.save();
			ctx.translate(m + (c + 0.5) * cs - ox, m - 4);
			ctx.rotate(-Math.PI / 2);
			ctx.fillText(label(data.players[order[c]]), 0, 0);
			ctx.restore();
		}
		ctx.restore();
	}

	/* The visible part of the image at the view's zoom and pan. */
	function render() {
		var n = order.length, m = margin();
		ctx.setTransform(1, 0, 0, 1, 0, 0);
		ctx.fillStyle = "rgb(" + BG.join(",") + ")";
		ctx.fillRect(0, 0, cv.width, cv.height);
		if (!n)
			return;
		clampView();
		ctx.save();
		ctx.beginPath();
		ctx.rect(m, m, cv.width - m, cv.height - m);
		ctx.clip();
		/* smooth when a pixel covers several cells, crisp cells when
		 * zoomed in */
		ctx.imageSmoothingEnabled = cs < 1;
		ctx.drawImage(img, m - ox, m - oy, n * cs, n * cs);
		if (cs >= GRID_MIN)
			drawGrid(m, n);
		ctx.restore();
		if (m)
			drawLabels(m, n);
	}

	/* Canvas pixels that are not the background, and a digest (FNV-1a)
	 * of them all: what the test reads to see that something, and
	 * something else after a sort or a filter, was drawn. */
	function painted() {
		var d = ctx.getImageData(0, 0, cv.width, cv.height).data, k = 0;
		var px = new Uint32Array(d.buffer), bg = palette[257];
		var h = 0x811c9dc5;
		for (var i = 0; i < px.length; i++) {
			if (px[i] !== bg)
				k++;
			h = Math.imul(h ^ px[i], 16777619);
		}
		return [k, (h >>> 0).toString(16)];
	}

	/* Order, image and view again (new data, sort or filter: refit, the
	 * zoom to show every shown player; new data keeps the view). */
	function rebuild(refit) {
		if (!data)
			return;
		var t0 = performance.now();
		makeOrder();
		var cells = paint();
		if (refit || !viewed)
			fit();
		render();
		var ms = performance.now() - t0;
		cv.dataset.drawMs = ms.toFixed(1);
		if (!cv.dataset.firstMs)
			cv.dataset.firstMs = performance.now().toFixed(1);
		cv.dataset.n = order.length;
		cv.dataset.cells = cells;
		cv.dataset.order = order.slice(0, 64).map(function (i) {
			return data.players[i];
		}).join(",");
		cv.dataset.sort = sortSel.value;
		cv.dataset.role = roleSel.value;
		var p = painted();
		cv.dataset.painted = p[0];
		cv.dataset.digest = p[1];
		info.textContent = order.length + " of " + data.players.length +
			" players, " + cells + " pairs met; drawn in " +
			ms.toFixed(0) + " ms";
	}

	/* Zoom by factor f keeping matrix point under (x, y) in place. */
	function zoom(f, x, y) {
		var m = margin();
		var mx = (x - m + ox) / cs, my = (y - m + oy) / cs;
		cs = Math.min(64, Math.max(0.05, cs * f));
		var m2 = margin();
		ox = mx * cs - (x - m2);
		oy = my * cs - (y - m2);
		render();
	}

	/* Wilson score interval of a win rate p over n games, at 95%. */
	function wilson(p, n) {
		var z2 = Z * Z, d = 1 + z2 / n;
		var c = (p + z2 / (2 * n)) / d;
		var h = Z * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / d;
		return [Math.max(0, c - h), Math.min(1, c + h)];
	}

	function cellAt(e) {
		var b = cv.getBoundingClientRect(), m = margin();
		var x = e.clientX - b.left, y = e.clientY - b.top;
		if (x < m || y < m)
			return null;
		var c = Math.floor((x - m + ox) / cs);
		var r = Math.floor((y - m + oy) / cs);
		if (r < 0 || c < 0 || r >= order.length || c >= order.length)
			return null;
		return { r: order[r], c: order[c], x: e.clientX, y: e.clientY };
	}

	function hover(e) {
		var h = data && cellAt(e);
		if (!h) {
			tip.style.display = "none";
			return;
		}
		var a = data.players[h.r], b = data.players[h.c];
		var p = data.win_rate[h.r][h.c], g = data.games[h.r][h.c];
		var s = label(a) + " vs " + label(b) + ": ";
		var mr = data.measure === "return" && data.mean_return;
		if (g > 0 && mr) {
			/* measure return: the pair's mean returns, the row's
			 * and the column's (general-sum: not each other's
			 * negative), the colour their score */
			var back = data.mean_return[h.c][h.r];
			s += "mean return " + data.mean_return[h.r][h.c].toFixed(3) +
			     " (the column's " + (back === null ? "-" :
			     back.toFixed(3)) + ") over " + g.toFixed(1) +
			     " games (decayed); score " + p.toFixed(3);
		} else if (g > 0) {
			var w = wilson(p, g);
			s += "win rate " + p.toFixed(3) + " over " +
			     g.toFixed(1) + " games (decayed), " +
			     "95% Wilson interval [" +
			     w[0].toFixed(3) + ", " + w[1].toFixed(3) + "]";
		} else {
			s += "never met";
		}
		tip.textContent = s;
		tip.style.display = "block";
		tip.style.left = (h.x + window.scrollX + 14) + "px";
		tip.style.top = (h.y + window.scrollY + 14) + "px";
	}

	function onWheel(e) {
		if (!data)
			return;
		e.preventDefault();
		var b = cv.getBoundingClientRect();
		zoom(e.deltaY < 0 ? 1.25 : 0.8, e.clientX - b.left,
		     e.clientY - b.top);
	}

	function onDown(e) {
		drag = { x: e.clientX, y: e.clientY, ox: ox, oy: oy };
	}

	function onMove(e) {
		if (drag) {
			ox = drag.ox - (e.clientX - drag.x);
			oy = drag.oy - (e.clientY - drag.y);
			render();
		}
		hover(e);
	}

	/* The filter's choices: every role present, and each learner role's
	 * family (the role's players and their snapshots). */
	function roleOptions() {
		var have = {}, fam = {};
		data.players.forEach(function (id) {
			have[roleOf(id)] = 1;
			fam[familyOf(id)] = 1;
		});
		var want = roleSel.dataset.want || roleSel.value;
		var opts = [["", "all"]];
		ROLE_ORDER.forEach(function (r) {
			if (have[r])
				opts.push([r, r]);
		});
		ROLE_ORDER.forEach(function (r) {
			if (fam[r] && r !== "historical")
				opts.push(["family:" + r, r + " + snapshots"]);
		});
		if (want && !opts.some(function (o) { return o[0] === want; }))
			opts.push([want, want]);
		var key = opts.map(function (o) { return o[0]; }).join("|");
		if (roleSel.dataset.key !== key) {
			roleSel.textContent = "";
			opts.forEach(function (o) {
				var e = document.createElement("option");
				e.value = o[0];
				e.textContent = o[1];
				roleSel.appendChild(e);
			});
			roleSel.dataset.key = key;
		}
		roleSel.value = want;
		delete roleSel.dataset.want;
	}

	function init() {
		cv = document.getElementById("heat");
		ctx = cv.getContext("2d");
		hmax = cv.height;
		tip = document.getElementById("htip");
		info = document.getElementById("hinfo");
		sortSel = document.getElementById("hsort");
		roleSel = document.getElementById("hrole");
		palette = makePalette();
		var h = readHash();
		sortSel.value = h.sort;
		roleSel.dataset.want = h.role;
		sortSel.onchange = roleSel.onchange = function () {
			writeHash();
			rebuild(true);
		};
		document.getElementById("hzin").onclick = function () {
			zoom(1.5, cv.width / 2, cv.height / 2);
		};
		document.getElementById("hzout").onclick = function () {
			zoom(1 / 1.5, cv.width / 2, cv.height / 2);
		};
		document.getElementById("hfit").onclick = function () {
			fit();
			render();
		};
		cv.addEventListener("wheel", onWheel, { passive: false });
		cv.addEventListener("mousedown", onDown);
		window.addEventListener("mouseup", function () {
			drag = null;
		});
		cv.addEventListener("mousemove", onMove);
		cv.addEventListener("mouseleave", function () {
			tip.style.display = "none";
		});
	}

	/* New data: /payoff and /ratings (the ladder's rows carry role,
	 * parent, rating, Nash weight and α-Rank mass by id). */
	function update(payoff, ratings) {
		if (!cv)
			init();
		data = payoff;
		data.players = data.players || [];
		/* the legend names the measure the cells show */
		var lg = document.getElementById("legend");
		if (lg && lg.firstChild && lg.firstChild.nodeType === 3)
			lg.firstChild.textContent = data.measure === "return" ?
				"cell: the row player's score against the column " +
				"player, from their mean returns (measure return: " +
				"1/2 even, 1 ahead by 2 x " + (data.return_scale || 1) +
				"; hover: both mean returns) " :
				"cell: win rate of the row player against the column player\n";
		meta = {};
		(ratings.ratings || []).forEach(function (r) {
			meta[r.id] = r;
		});
		roleOptions();
		rebuild(false);
	}

	return { update: update, label: label };
})();
