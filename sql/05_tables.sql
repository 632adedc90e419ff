--
-- 05_tables: the definitions of the main tables, as psql shows them.
--
\d mixdnn.gpu_types
\d mixdnn.gpu_nodes
\d mixdnn.profiles
\d mixdnn.jobs
\d mixdnn.allocations
\d mixdnn.rounds
