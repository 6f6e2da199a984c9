-- Insert of a random 64-bit key into keys_bt_ins (indexed the same way as keys_bt).
--   pgbench -n -M prepared -c 1 -T 15 -f bench/insert_bt.sql <db>
\set r random(1, 4611686018427387903)
INSERT INTO keys_bt_ins VALUES (hashint8extended(:r, 1));
