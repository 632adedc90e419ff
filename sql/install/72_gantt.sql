-- 72_gantt.sql — mixdnn.gantt_svg(), the chart of what ran and what is
-- planned. Also the upgrade piece 0.1.0--0.2.0/99p (a link to this file),
-- so that both create the same objects.

-- Internal: the bars of mixdnn.gantt_svg(). Runs as its owner so that every
-- job's bar is drawn; like mixdnn.queue, a job's name only for its owner and
-- admins. On a node's lane ("node"): each launch attempt's part, from the
-- launch to its end ('ran'), or, while it runs, to its expected end or now,
-- whichever is later ('running'), with the job's first plan (first_start,
-- first_end) to compare. On a GPU type's lane ("type"): a waiting job's plan
-- ('planned'). ended: the part's finished_at, a filter that reaches the
-- scan of job_parts before each part's launch is looked up (the bar's end
-- may be now(), which a security_barrier view does not let through).
-- A bar needs a finite start and, when it has ended, a finite end: a part
-- whose launch or finished_at, or a plan whose planned_start, is
-- 'infinity' or '-infinity' (only a superuser's UPDATE writes one) is left
-- out: one such row failed every chart with "cannot subtract infinite
-- timestamps". An infinite end still to come (a running job's planned_end)
-- is drawn to the window's end.
CREATE VIEW mixdnn._gantt_bars WITH (security_barrier = true) AS
	SELECT b.section, b.lane, b.kind, b.gpus, b.job_id, b.owner, b.model_class, b.status, b.s, b.e,
		   CASE WHEN b.owner OPERATOR(pg_catalog.=) CURRENT_USER
					 OR pg_catalog.pg_has_role(CURRENT_USER, 'mixdnn_admin', 'MEMBER') THEN b.name END AS name,
		   f.planned_start AS first_start, f.planned_end AS first_end, b.ended
	FROM (SELECT 'node'::text AS section, p.node AS lane,
				 CASE WHEN p.finished_at IS NULL THEN 'running' ELSE 'ran' END AS kind,
				 p.gpus, j.job_id, j.owner, j.model_class, p.state AS status, l.at AS s,
				 coalesce(p.finished_at, greatest(j.planned_end, mixdnn.now())) AS e, j.name, p.finished_at AS ended
		  FROM mixdnn.job_parts p
		  -- its launch, the job's attempt-th as mixdnn._launches numbers them, by
		  -- the job_events index: numbering every launch of the history cost
		  -- 0.8 s a chart over 200,000 finished parts
		  CROSS JOIN LATERAL (
			  SELECT e.at FROM mixdnn.job_events e
			  WHERE e.job_id OPERATOR(pg_catalog.=) p.job_id AND e.new_status OPERATOR(pg_catalog.=) 'launching'
			  ORDER BY e.event_id OFFSET p.attempt OPERATOR(pg_catalog.-) 1 LIMIT 1) l
		  JOIN mixdnn.jobs j ON j.job_id OPERATOR(pg_catalog.=) p.job_id
		  WHERE p.attempt OPERATOR(pg_catalog.>=) 1 AND pg_catalog.isfinite(l.at)
			AND (p.finished_at IS NULL OR pg_catalog.isfinite(p.finished_at))
		  UNION ALL
		  SELECT 'type', j.planned_gpu_type, 'planned', j.planned_gpus, j.job_id, j.owner, j.model_class, j.status,
				 j.planned_start, j.planned_end, j.name, NULL::timestamptz
		  FROM mixdnn.jobs j
		  WHERE j.status OPERATOR(pg_catalog.=) 'planned' AND pg_catalog.isfinite(j.planned_start)) b
	LEFT JOIN LATERAL (
		SELECT h.planned_start, h.planned_end FROM mixdnn.plan_history h
		WHERE h.job_id OPERATOR(pg_catalog.=) b.job_id AND h.planned_start IS NOT NULL
		ORDER BY h.round_id LIMIT 1) f ON b.section OPERATOR(pg_catalog.=) 'node';
COMMENT ON VIEW mixdnn._gantt_bars IS 'internal: what mixdnn.gantt_svg draws';

-- Internal: character data for the chart's XML (an element's text, not an
-- attribute's value: quotes stay): the markup characters escaped, and
-- every character XML 1.0 does not allow drawn as '?' (names and role
-- names may hold any character, and one such character makes the whole
-- document unreadable): the C0 controls but tab, newline and carriage
-- return; U+FFFE and U+FFFF in a UTF-8 database; in a SQL_ASCII one every
-- byte above 127, which need not be UTF-8. E'' literals, so that the
-- patterns mean the same with standard_conforming_strings off.
CREATE FUNCTION mixdnn._xml_text(t text) RETURNS text
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	t := regexp_replace(replace(replace(replace(t, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'),
						E'[\\x01-\\x08\\x0B\\x0C\\x0E-\\x1F]', '?', 'g');
	IF current_setting('server_encoding') = 'UTF8' THEN
		t := regexp_replace(t, E'[\\uFFFE\\uFFFF]', '?', 'g');
	ELSIF current_setting('server_encoding') = 'SQL_ASCII' THEN
		t := regexp_replace(t, E'[\\x80-\\xFF]', '?', 'g');
	END IF;
	RETURN t;
END
$$;
COMMENT ON FUNCTION mixdnn._xml_text(text) IS 'internal: text escaped for mixdnn.gantt_svg''s XML, characters XML forbids as ?';

-- Internal: one lane of mixdnn.gantt_svg() from height y, given its bars
-- in start order: each bar takes as many free GPU rows as it has GPUs,
-- earliest first (rows are added when a lane's bars need more than its
-- GPUs). Returns the SVG and the rows used. The pieces are collected in an
-- array (appended in place) and joined once: a string grown bar by bar is
-- copied whole at every bar.
CREATE FUNCTION mixdnn._gantt_lane(bars mixdnn._gantt_bars[], lane_rows int, from_ts timestamptz,
								   to_ts timestamptz, y int, OUT svg text, OUT nrows int)
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	x0			constant int := 130;
	plotw		constant int := 1020;	-- leaves room for the last tick's label
	rowh		constant int := 12;
	span		float8 := date_part('epoch', to_ts - from_ts);
	ends		timestamptz[] := array_fill('-infinity'::timestamptz, ARRAY[greatest(lane_rows, 1)]);
	pieces		text[] := '{}';
	bar			mixdnn._gantt_bars;
	r			int;
	k			int;
BEGIN
	FOREACH bar IN ARRAY coalesce(bars, '{}') LOOP
		k := 0;
		r := 0;
		WHILE k < bar.gpus LOOP
			r := r + 1;
			IF r > array_length(ends, 1) THEN
				ends := ends || '-infinity'::timestamptz;
			END IF;
			CONTINUE WHEN ends[r] > bar.s;
			ends[r] := bar.e;
			k := k + 1;
			pieces := pieces || format('<rect class="%s" data-job="%s" x="%s" y="%s" width="%s" height="%s" fill="hsl(%s,65%%,50%%)"><title>%s</title></rect>',
				bar.kind, bar.job_id,
				round((x0 + plotw * greatest(0, date_part('epoch', bar.s - from_ts)) / span)::numeric, 1),
				y + (r - 1) * rowh + 1,
				round(greatest(0.5, plotw * date_part('epoch', least(bar.e, to_ts) - greatest(bar.s, from_ts)) / span)::numeric, 1),
				rowh - 2, abs(hashtext(bar.owner::text)) % 360,
				mixdnn._xml_text(format('job %s%s of %s (%s, %s GPU%s, %s): %s to %s', bar.job_id,
					coalesce(' "' || bar.name || '"', ''), bar.owner, bar.model_class, bar.gpus,
					CASE WHEN bar.gpus = 1 THEN '' ELSE 's' END, bar.status,
					bar.s, bar.e)));
			-- The first plan of what ran, as a thin line over the bar: planned
			-- versus actual; none where it starts at -infinity.
			IF bar.first_start < to_ts AND bar.first_end > from_ts AND isfinite(bar.first_start) THEN
				pieces := pieces || format('<rect class="plan" data-job="%s" x="%s" y="%s" width="%s" height="2"/>',
					bar.job_id,
					round((x0 + plotw * greatest(0, date_part('epoch', bar.first_start - from_ts)) / span)::numeric, 1),
					y + (r - 1) * rowh,
					round(greatest(0.5, plotw * date_part('epoch', least(bar.first_end, to_ts)
						- greatest(bar.first_start, from_ts)) / span)::numeric, 1));
			END IF;
		END LOOP;
	END LOOP;
	svg := array_to_string(pieces, '');
	nrows := greatest(lane_rows, array_length(ends, 1), 1);
END
$$;
COMMENT ON FUNCTION mixdnn._gantt_lane(mixdnn._gantt_bars[], int, timestamptz, timestamptz, int) IS 'internal: one lane of mixdnn.gantt_svg';

-- An SVG Gantt chart of [from_ts, to_ts): a lane per node with a row per
-- GPU for what ran and runs, a lane per GPU type for what is planned,
-- colored by owner. As the invoker: the bars come from mixdnn._gantt_bars.
CREATE FUNCTION mixdnn.gantt_svg(from_ts timestamptz, to_ts timestamptz) RETURNS text
	LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	width		constant int := 1200;
	x0			constant int := 130;
	plotw		constant int := 1020;
	rowh		constant int := 12;
	max_bars	constant int := 50000;	-- 11.5 MB of SVG without plan lines (docs/reference.md, "Gantt chart")
	y			int := 50;
	out			text[] := '{}';
	lane		record;
	drawn		record;
	k			int;
	clock		text;
	ticks		timestamp[];
BEGIN
	IF from_ts IS NULL OR to_ts IS NULL THEN
		RAISE EXCEPTION 'mixdnn.gantt_svg needs from_ts and to_ts'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF NOT (to_ts > from_ts) OR NOT pg_catalog.isfinite(from_ts) OR NOT pg_catalog.isfinite(to_ts) THEN
		RAISE EXCEPTION 'mixdnn.gantt_svg needs finite from_ts < to_ts'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- The axis divides to_ts - from_ts, an interval, which holds about
	-- 290 000 years, and five of it are computed: wider windows failed with
	-- 22008 from inside, after reading the whole history.
	IF date_part('epoch', to_ts) - date_part('epoch', from_ts) > 10000 * 31557600.0 THEN
		RAISE EXCEPTION 'mixdnn.gantt_svg draws windows of at most 10000 years'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- Every bar of the window in one scan, grouped by lane (a query per lane
	-- read all of history once per node). bars: the window's rectangles, one
	-- per GPU of each part and plan, counted before any is drawn: 100 days
	-- of a busy cluster's history made 158 MB of SVG, which no viewer opens.
	FOR lane IN
		SELECT l.section, l.name, l.rows, b.bars, pg_catalog.sum(b.n) OVER () AS total
		FROM (SELECT 'node' AS section, n.node AS name, n.gpus AS rows FROM mixdnn.gpu_nodes n
			  UNION ALL
			  SELECT 'type', t.gpu_type, coalesce((SELECT sum(n.gpus) FROM mixdnn.gpu_nodes n WHERE n.gpu_type = t.gpu_type), 0)::int
			  FROM mixdnn.gpu_types t) l
		LEFT JOIN (SELECT g.section, g.lane, array_agg(g ORDER BY g.s, g.job_id) AS bars, sum(g.gpus) AS n
				   FROM mixdnn._gantt_bars g
				   WHERE g.s < to_ts AND g.e > from_ts AND (g.ended IS NULL OR g.ended > from_ts)
				   GROUP BY g.section, g.lane) b ON b.section = l.section AND b.lane = l.name
		ORDER BY 1, 2
	LOOP
		IF lane.total > max_bars THEN
			RAISE EXCEPTION 'mixdnn.gantt_svg draws at most % bars, and this window has %', max_bars, lane.total
				USING ERRCODE = 'program_limit_exceeded',
					  HINT = 'Chart a shorter window; mixdnn.utilization() sums up a long one.';
		END IF;
		drawn := mixdnn._gantt_lane(lane.bars, lane.rows, from_ts, to_ts, y);
		out := out || drawn.svg;
		out := out || format('<text class="lane" x="4" y="%s">%s %s</text><line class="sep" x1="0" x2="%s" y1="%5$s" y2="%5$s"/>',
				y + rowh, CASE lane.section WHEN 'node' THEN 'node' ELSE 'planned' END, lane.name,
				width, y + drawn.nrows * rowh);
		y := y + drawn.nrows * rowh + 4;
	END LOOP;
	-- Time axis: six ticks, and now when inside the window. Ticks are
	-- counted in UTC (in the session's zone a day across a DST change is 23
	-- or 25 hours, and the labels drifted from the even spacing), labelled
	-- as finely as they need: to the second or millisecond when a tick is
	-- off the whole minute or second (cut, a short window's labels repeated
	-- and put now before a later one), with the year when the window spans
	-- two.
	SELECT array_agg((from_ts AT TIME ZONE 'UTC') + (to_ts - from_ts) * k5 / 5 ORDER BY k5) INTO ticks
	FROM generate_series(0, 5) k5;
	SELECT CASE WHEN bool_or(date_trunc('second', t) <> t) THEN 'HH24:MI:SS.MS'
				WHEN bool_or(date_trunc('minute', t) <> t) THEN 'HH24:MI:SS' ELSE 'HH24:MI' END INTO clock
	FROM unnest(ticks) t;
	FOR k IN 0 .. 5 LOOP
		out := out || format('<line class="tick" x1="%1$s" x2="%1$s" y1="40" y2="%2$s"/><text class="tick" x="%1$s" y="34">%3$s</text>',
			round((x0 + plotw * k / 5.0)::numeric, 1), y,
			to_char(ticks[k + 1], CASE WHEN date_trunc('year', ticks[1]) = date_trunc('year', ticks[6])
									  THEN 'MM-DD ' ELSE 'YYYY-MM-DD ' END || clock));
	END LOOP;
	IF mixdnn.now() >= from_ts AND mixdnn.now() < to_ts THEN
		out := out || format('<line class="now" x1="%1$s" x2="%1$s" y1="40" y2="%2$s"/>',
			round((x0 + plotw * date_part('epoch', mixdnn.now() - from_ts) / date_part('epoch', to_ts - from_ts))::numeric, 1), y);
	END IF;
	RETURN format('<svg xmlns="http://www.w3.org/2000/svg" width="%1$s" height="%2$s" viewBox="0 0 %1$s %2$s">', width, y + 10)
		|| '<style>text{font:10px sans-serif}.planned{opacity:.45;stroke:#000;stroke-dasharray:3 2}.running{stroke:#000}.plan{fill:#000}'
		|| 'line.tick{stroke:#ccc}text.tick{fill:#555;text-anchor:middle}.sep{stroke:#eee}.now{stroke:red}</style>'
		|| format('<rect x="0" y="0" width="%s" height="%s" fill="white"/>', width, y + 10)
		|| format('<text x="4" y="14">MixDNN %s to %s (UTC); solid: ran, outlined: running (to its expected end), black line: its first plan, dashed: planned; color: owner</text>',
				  to_char(from_ts AT TIME ZONE 'UTC', 'YYYY-MM-DD ' || clock), to_char(to_ts AT TIME ZONE 'UTC', 'YYYY-MM-DD ' || clock))
		|| array_to_string(out, '') || '</svg>';
END
$$;
COMMENT ON FUNCTION mixdnn.gantt_svg(timestamptz, timestamptz) IS 'an SVG Gantt chart of a time window: what ran on each node''s GPUs and what is planned per GPU type';

REVOKE ALL ON mixdnn._gantt_bars FROM PUBLIC;
REVOKE ALL ON FUNCTION mixdnn.gantt_svg(timestamptz, timestamptz), mixdnn._xml_text(text),
	mixdnn._gantt_lane(mixdnn._gantt_bars[], int, timestamptz, timestamptz, int) FROM PUBLIC;
GRANT SELECT ON mixdnn._gantt_bars TO mixdnn_user, mixdnn_admin;
GRANT EXECUTE ON FUNCTION mixdnn.gantt_svg(timestamptz, timestamptz), mixdnn._xml_text(text),
	mixdnn._gantt_lane(mixdnn._gantt_bars[], int, timestamptz, timestamptz, int) TO mixdnn_user, mixdnn_admin;
