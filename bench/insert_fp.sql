-- Insert of a random 64-bit key into keys_fp_ins (indexed the same way as keys_fp).
--   pgbench -n -M prepared -c 1 -T 15 -f bench/insert_fp.sql <db>
\set r random(1, 4611686018427387903)
INSERT INTO keys_fp_ins VALUES (hashint8extended(:r, 1));
