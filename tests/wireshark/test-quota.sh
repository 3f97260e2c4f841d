# SPDX-License-Identifier: GPL-2.0-or-later
# The quota protocol (lnetcap.quota) and the quota intents of LDLM_ENQUEUE,
# as Lustre 2.16 lays them out (layout.c RQF_QUOTA_DQACQ, RQF_MDS_QUOTACTL,
# RQF_OST_QUOTACTL, RQF_LDLM_INTENT_QUOTA), on gen_vectors.cpp
# quota_records():
#  1-2 QUOTA_DQACQ user 1000 (ACQ|REPORT 4096 kbytes; reply qunit 65536);
#  3-4 MDS_QUOTACTL LUSTRE_Q_GETQUOTA and its limits (+ 2.16 ITER buffer);
#  5   OST_QUOTACTL LUSTRE_Q_GETQUOTAPOOL in pool "flash";
#  6-7 LDLM_ENQUEUE IT_QUOTA_DQACQ: quota_body in request and reply;
#  8   LDLM_ENQUEUE IT_QUOTA_CONN; 9 a quota_body cut by the snap length.
"$LNETCAP_VECTORS" "$WORK/quota.pcapng" quota || fail "vector generator failed"
chmod a+r "$WORK/quota.pcapng"
v="$WORK/quota.pcapng"

body() {  # the quota_body fields of one frame
	ts -r "$v" -Y "frame.number == $1" -T fields -E occurrence=a -E aggregator=, \
		-e _ws.col.Protocol -e lnetcap.quota.fid -e lnetcap.quota.glb.qtype \
		-e lnetcap.quota.glb.res_type -e lnetcap.quota.id -e lnetcap.quota.flags \
		-e lnetcap.quota.count -e lnetcap.quota.usage -e lnetcap.quota.slv_ver \
		-e lnetcap.quota.lockh -e lnetcap.quota.glb_lockh
}
qctl() {  # the obd_quotactl fields of one frame
	ts -r "$v" -Y "frame.number == $1" -T fields -E occurrence=a -E aggregator=, \
		-e lnetcap.quota.qc_cmd -e lnetcap.quota.qc_type -e lnetcap.quota.qc_id \
		-e lnetcap.quota.dqi_bgrace -e lnetcap.quota.dqb_bhardlimit \
		-e lnetcap.quota.dqb_bsoftlimit -e lnetcap.quota.dqb_curspace \
		-e lnetcap.quota.dqb_curinodes -e lnetcap.quota.dqb_valid -e lnetcap.quota.poolname \
		-e lnetcap.quota.iter
}
expect() {  # expect FUNC FRAME WANT WHAT
	local got
	got=$($1 "$2")
	[ "$got" = "$3" ] || fail "frame $2 ($4): got '$got', expected '$3'"
	pass "frame $2: $4"
}
t=$'\t'
glb_usr_dt="[0x200000006:0x20000:0x0]${t}0${t}2"
expect body 1 "Quota${t}${glb_usr_dt}${t}1000${t}0x00000009${t}4096${t}1024${t}7${t}0x000000000abc0001${t}0x000000000def0002" \
	"QUOTA_DQACQ: user 1000 acquires 4096 (ACQ|REPORT), user block index"
expect body 2 "Quota${t}${glb_usr_dt}${t}1000${t}0x00000001${t}4096${t}65536${t}7${t}0x000000000abc0001${t}0x000000000def0002" \
	"QUOTA_DQACQ reply: 4096 granted, qunit 65536"
expect qctl 3 "0x00800007${t}0${t}1000${t}0${t}0${t}0${t}0${t}0${t}0x00000000${t}${t}" \
	"MDS_QUOTACTL request: LUSTRE_Q_GETQUOTA of user 1000"
expect qctl 4 "0x00800007${t}0${t}1000${t}604800${t}1048576${t}524288${t}123456789${t}42${t}0x0000003f${t}${t}11111111111111111111111111111111" \
	"MDS_QUOTACTL reply: limits, usage, grace and the ITER buffer"
expect qctl 5 "0x0080000f${t}1${t}100${t}0${t}0${t}0${t}0${t}0${t}0x00000000${t}flash${t}" \
	"OST_QUOTACTL: LUSTRE_Q_GETQUOTAPOOL of group 100 in pool flash"
expect body 6 "LDLM${t}${glb_usr_dt}${t}1000${t}0x00000002${t}0${t}2048${t}7${t}0x000000000abc0001${t}0x000000000def0002" \
	"LDLM_ENQUEUE IT_QUOTA_DQACQ: quota_body after the intent"
expect body 7 "LDLM${t}${glb_usr_dt}${t}1000${t}0x00000002${t}8192${t}65536${t}7${t}0x000000000abc0001${t}0x000000000def0002" \
	"LDLM_ENQUEUE reply: quota_body after the lquota_lvb"
expect body 8 "LDLM${t}[0x200000006:0x1010000:0x0]${t}1${t}1${t}0${t}0x00000000${t}0${t}0${t}7${t}0x000000000abc0001${t}0x000000000def0002" \
	"LDLM_ENQUEUE IT_QUOTA_CONN: group inode index"
n=$(ts -r "$v" -Y "frame.number == 7" -T fields -e lnetcap.ldlm.qlvb.id_qunit)
[ "$n" = 65536 ] || fail "frame 7: lquota_lvb no longer decoded before the quota_body ('$n')"
pass "frame 7: the lquota_lvb is still decoded"

info=$(ts -r "$v" -T fields -E separator='|' -e frame.number -e _ws.col.Info -e _ws.expert.message)
for want in '1|\[node 1 [A-Z]*\] QUOTA_DQACQ request .* USRQUOTA id 1000 ACQ REPORT count 4096|' \
	'3|\[node 1 [A-Z]*\] MDS_QUOTACTL request .* LUSTRE_Q_GETQUOTA USRQUOTA id 1000|' \
	'5|\[node 1 [A-Z]*\] OST_QUOTACTL request .* LUSTRE_Q_GETQUOTAPOOL GRPQUOTA id 100 pool "flash"|' \
	'6|\[node 1 [A-Z]*\] LDLM_ENQUEUE request .* PR PLAIN intent quota_dqacq USRQUOTA id 1000 PREACQ|' \
	'8|\[node 1 [A-Z]*\] LDLM_ENQUEUE request .* intent quota_conn GRPQUOTA id 0|' \
	'9|\[node 1 [A-Z]*\] QUOTA_DQACQ request .*|quota_body (buffer 1) was not captured: snap length too small'; do
	grep -q "^$want" <<<"$info" || fail "Info/expert: no line matching '$want'"
done
pass "Info column: command, quota type, id, flags, count; snapped body flagged"
expect_count "$v" "lnetcap.quota" 6
expect_count "$v" "lnetcap.ptlrpc.body.undecoded" 0
expect_count "$v" "_ws.malformed" 0
