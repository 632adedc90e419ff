-- Created here rather than by the control file, so that it belongs to the
-- extension and DROP EXTENSION removes it.
CREATE SCHEMA mixdnn;

-- An admin can do all a user can.
GRANT mixdnn_user TO mixdnn_admin;

REVOKE ALL ON SCHEMA mixdnn FROM PUBLIC;
GRANT USAGE ON SCHEMA mixdnn TO mixdnn_user, mixdnn_admin, mixdnn_launcher;
COMMENT ON SCHEMA mixdnn IS 'MixDNN: event-driven utility scheduler for DNN training jobs on a heterogeneous GPU cluster';
