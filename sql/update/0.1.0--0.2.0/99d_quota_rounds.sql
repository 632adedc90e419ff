-- 99d_quota_rounds.sql — a change of quotas or shares re-plans at commit
-- (event quota): a quota raised starts the jobs that waited for it, one
-- lowered un-plans the starts beyond it, at once rather than at the next
-- job or node event. Their checks let a restore's data load through, as the
-- other tables' do: a row naming a GPU type deleted since is restored.
DROP TRIGGER quotas_before_write ON mixdnn.quotas;
DROP TRIGGER shares_before_write ON mixdnn.shares;
CREATE TRIGGER quotas_before_write BEFORE INSERT OR UPDATE ON mixdnn.quotas
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._tenancy_before_write();
CREATE TRIGGER shares_before_write BEFORE INSERT OR UPDATE ON mixdnn.shares
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._tenancy_before_write();
CREATE TRIGGER quotas_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.quotas
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();
CREATE TRIGGER shares_note_event BEFORE INSERT OR UPDATE OR DELETE ON mixdnn.shares
	FOR EACH ROW WHEN (NOT mixdnn._loading()) EXECUTE FUNCTION mixdnn._note_event();
CREATE CONSTRAINT TRIGGER quotas_round AFTER INSERT OR UPDATE OR DELETE ON mixdnn.quotas
	DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW EXECUTE FUNCTION mixdnn._round_at_commit();
CREATE CONSTRAINT TRIGGER shares_round AFTER INSERT OR UPDATE OR DELETE ON mixdnn.shares
	DEFERRABLE INITIALLY DEFERRED
	FOR EACH ROW EXECUTE FUNCTION mixdnn._round_at_commit();
