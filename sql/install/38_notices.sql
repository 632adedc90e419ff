-- The launchers' notifications (mixdnn_launch, mixdnn_cancel), written as
-- rows with the change they announce and sent by the launch worker from a
-- transaction of its own (src/pg/notices.c): PostgreSQL queues NOTIFYs at
-- commit under one lock for the whole server, which any role's large
-- NOTIFY holds for seconds, and a transaction holding the scheduler lock
-- must not wait for it. Only the extension's owner reads or writes it; a
-- dump leaves it out (notices hurry launchers, which poll).
CREATE TABLE mixdnn.notices (
	notice_id	bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	channel		text NOT NULL CHECK (channel IN ('mixdnn_launch', 'mixdnn_cancel')),
	payload		text NOT NULL
);
COMMENT ON TABLE mixdnn.notices IS 'internal: launcher notifications the launch worker sends after the commit that queued them';
REVOKE ALL ON mixdnn.notices FROM PUBLIC;

-- A notice, queued for the worker (or sent at commit where no worker
-- serves the database; dropped while PostgreSQL's queue is half full).
CREATE FUNCTION mixdnn._queue_notice(channel text, payload text) RETURNS void
	AS 'MODULE_PATHNAME', 'mixdnn_queue_notice'
	LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION mixdnn._queue_notice(text, text) IS 'internal: queues a launcher notification for the launch worker';
REVOKE ALL ON FUNCTION mixdnn._queue_notice(text, text) FROM PUBLIC;
