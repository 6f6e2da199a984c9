#!/usr/bin/env python3
# Distinct-prefix rates of generated keys for prefix widths 4..16 bytes
# (src/am/README.md, "Wide keys", "Why 8 bytes").  Text is seeded (42),
# uuids come from the uuid module (random, time-based);
# e-mail addresses are synthetic: names from short lists.
import random, uuid, string
random.seed(42)
N = 100000
first = ["james","john","robert","michael","william","david","richard","joseph","thomas","charles",
 "mary","patricia","jennifer","linda","elizabeth","barbara","susan","jessica","sarah","karen",
 "anna","maria","lukas","leon","emma","mia","noah","sofia","hugo","lea","chen","wei","yuki","ali","omar"]
last = ["smith","johnson","williams","brown","jones","garcia","miller","davis","rodriguez","martinez",
 "hernandez","lopez","gonzalez","wilson","anderson","thomas","taylor","moore","jackson","martin",
 "lee","perez","thompson","white","harris","sanchez","clark","ramirez","lewis","robinson",
 "mueller","schmidt","schneider","fischer","weber","meyer","wagner","becker","schulz","hoffmann"]
doms = ["gmail.com","yahoo.com","outlook.com","example.org","web.de","mail.ru","corp.example.com"]
def email():
    f, l = random.choice(first), random.choice(last)
    sep = random.choice([".", "_", ""])
    num = random.choice(["", "", str(random.randint(1, 99)), str(random.randint(1950, 2010))])
    form = random.random()
    u = (f + sep + l) if form < 0.6 else (f[0] + l) if form < 0.8 else (l + sep + f)
    return (u + num + "@" + random.choice(doms)).encode()
alnum = (string.ascii_letters + string.digits)
sets = {
 "random text, 32 chars": [''.join(random.choice(alnum) for _ in range(32)).encode() for _ in range(N)],
 "emails (synthetic)": [email() for _ in range(N)],
 "uuid v4": [uuid.uuid4().bytes for _ in range(N)],
 "uuid v1 (time-based)": [uuid.uuid1(node=random.getrandbits(48), clock_seq=random.getrandbits(14)).bytes for _ in range(N)],
 "URLs https://www.example.com/...": [("https://www.example.com/p/%d" % random.randint(0, 10**7)).encode() for _ in range(N)],
}
print("%-34s %8s | %s" % ("data (100k values)", "distinct", "  ".join("%2dB: dist%%  tie%%" % w for w in (4, 8, 12, 16))))
for name, vals in sets.items():
    d = sorted(set(vals))
    row = []
    for w in (4, 8, 12, 16):
        pre = [v[:w].ljust(w, b'\0') for v in d]
        dist = len(set(pre)) / len(d) * 100
        ties = sum(1 for a, b in zip(pre, pre[1:]) if a == b) / (len(d) - 1) * 100
        row.append("%6.1f %6.1f" % (dist, ties))
    print("%-34s %8d | %s" % (name, len(d), "   ".join(row)))
