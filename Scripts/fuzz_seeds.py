#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target (Scripts/fuzz.sh) into DIR/<target>/, cut from the
real data in the repository: our rig recordings, the real webrtc-internals dumps, the real
third-party fixtures of the tests and the decoded VP8 frames. Seeds are kept small (a few lines
or values of each real file) so libFuzzer mutates them quickly; the structure is real."""
import gzip, json, os, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
out = sys.argv[1]
fixtures = os.path.join(root, "Tests/RTCStatsTests/Fixtures")
recordings = os.path.join(root, "Recordings")


def write(target, name, data):
    os.makedirs(os.path.join(out, target), exist_ok=True)
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def lines_of(path, count):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return b"".join(line for _, line in zip(range(count), f))


# Recordings: the header, early event lines and a few sample lines.
for name in ["baseline-simulcast.ndjson.gz", "both-sides.ndjson.gz"]:
    path = os.path.join(recordings, name)
    with gzip.open(path, "rb") as f:
        all_lines = f.read().split(b"\n")
    samples = [line for line in all_lines if b'"report"' in line][:3]
    events = [line for line in all_lines if b'"event"' in line][:6]
    excerpt = b"\n".join([all_lines[0]] + events + samples) + b"\n"
    stem = name.split(".")[0]
    for target in ("recording", "timeline"):
        write(target, stem + ".ndjson", excerpt)
    write("timeline", stem + ".ndjson.gz", gzip.compress(excerpt, mtime=0))
    write("gzip", stem + ".ndjson.gz", gzip.compress(excerpt, 6, mtime=0))
    write("gzip", stem + "-stored.gz", gzip.compress(excerpt[:2000], 0, mtime=0))
    for index, line in enumerate(samples[:2]):
        report = json.loads(line)["report"]
        write("report", f"{stem}-report-{index}.json", json.dumps(report, separators=(",", ":")))
        write("json", f"{stem}-line-{index}.json", line)
    sent = [json.loads(line)["data"] for line in all_lines if b'"sender-stats"' in line][:8]
    for index, message in enumerate(sent):
        write("sender-stats", f"{stem}-{index}.json", json.dumps(message, separators=(",", ":")))

# rtcstats dumps (v1), and one rewritten as a v3 RTCStatsDump (delta times).
for name in sorted(os.listdir(fixtures)):
    if not name.endswith(".rtcstats"):
        continue
    excerpt = lines_of(os.path.join(fixtures, name), 20)
    for target in ("rtcstats", "timeline"):
        write(target, name, excerpt)
    write("json", name + ".line", excerpt.split(b"\n")[1])
    if name.startswith("chrome-relay"):
        previous, v3 = 0, ["RTCStatsDump", json.dumps({"fileFormat": 3})]
        for line in excerpt.decode().splitlines():
            element = json.loads(line)
            if len(element) > 3 and isinstance(element[-1], (int, float)):
                element[-1], previous = element[-1] - previous, element[-1]
            v3.append(json.dumps(element, separators=(",", ":")))
        write("rtcstats", "chrome-relay-v3.rtcstats", "\n".join(v3) + "\n")

# Real webrtc-internals dumps, each series cut to its last three values.
for name in ["webrtc-internals-publisher.json.gz", "webrtc-internals-subscriber.json.gz"]:
    with gzip.open(os.path.join(recordings, name), "rb") as f:
        dump = json.load(f)
    for connection in dump.get("PeerConnections", {}).values():
        stats = connection.get("stats", {})
        for key in list(stats)[90:]:
            del stats[key]
        for series in stats.values():
            series["values"] = json.dumps(json.loads(series["values"])[-3:], separators=(",", ":"))
    text = json.dumps(dump, separators=(",", ":"))
    for target in ("webrtc-internals", "timeline"):
        write(target, name[:-3], text)

# Single getStats() reports from third parties.
for name in ["dolbyio-first.json", "mypurecloud-mock-spec-stats-1.json"]:
    with open(os.path.join(fixtures, name), "rb") as f:
        data = f.read()
    for target in ("report", "json", "timeline"):
        write(target, name, data)

for name in sorted(os.listdir(fixtures)):
    if name.endswith(".gz"):
        with open(os.path.join(fixtures, name), "rb") as f:
            write("gzip", name, f.read())

# Real decoded frames: the Y4M header and the first frame of each clip.
for name in sorted(os.listdir(os.path.join(recordings, "frames"))):
    if not name.endswith(".y4m.gz"):
        continue
    with gzip.open(os.path.join(recordings, "frames", name), "rb") as f:
        clip = f.read()
    header_end = clip.index(b"\n") + 1
    fields = dict((token[:1], token[1:]) for token in clip[:header_end].split()[1:])
    frame = 6 + int(fields[b"W"]) * int(fields[b"H"]) * 3 // 2
    write("y4m", name[:-3], clip[: header_end + frame])
    write("y4m", name[:-3] + ".header", clip[:header_end] + b"FRAME\n")

# XMPP over WebSocket: one message per seed, in the shapes Prosody 0.12 sends (stream header and
# features, a SASL challenge, roster result and push, presence, XEP-0215 services, XEP-0198).
xmpp_messages = {
    "open": "<open xmlns='urn:ietf:params:xml:ns:xmpp-framing' version='1.0' from='callscope.example' id='6f3a' xml:lang='en'/>",
    "features": "<stream:features xmlns:stream='http://etherx.jabber.org/streams'><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>SCRAM-SHA-1</mechanism><mechanism>PLAIN</mechanism></mechanisms></stream:features>",
    "bound-features": "<stream:features xmlns:stream='http://etherx.jabber.org/streams'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><required/></bind><session xmlns='urn:ietf:params:xml:ns:xmpp-session'><optional/></session><sm xmlns='urn:xmpp:sm:3'/><sm xmlns='urn:xmpp:sm:2'/></stream:features>",
    "challenge": "<challenge xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>cj1meWtvK2QybGJiRmdPTlJ2OXFreGRhd0wzcmZjTkhZSlkxWlZ2V1ZzN2oscz1RU1hDUitRNnNlazhiZjkyLGk9NDA5Ng==</challenge>",
    "roster": "<iq xmlns='jabber:client' type='result' id='callscope-1' to='alice@callscope.example/callscope'><query xmlns='jabber:iq:roster' ver='3'><item jid='bob@callscope.example' subscription='both'/><item jid='carol@callscope.example' subscription='none' ask='subscribe' name='Carol &amp; co'/></query></iq>",
    "push": "<iq xmlns='jabber:client' type='set' id='lx3' to='alice@callscope.example/callscope'><query xmlns='jabber:iq:roster' ver='4'><item jid='bob@callscope.example' subscription='to'/></query></iq>",
    "presence": "<presence xmlns='jabber:client' from='bob@callscope.example/callscope' to='alice@callscope.example/callscope'><show>away</show><status>out</status><delay xmlns='urn:xmpp:delay' stamp='2026-12-02T07:00:00Z'/></presence>",
    "services": "<iq xmlns='jabber:client' type='result' id='callscope-2' from='callscope.example'><services xmlns='urn:xmpp:extdisco:2'><service type='stun' host='127.0.0.1' port='3478' transport='udp'/><service type='turn' host='127.0.0.1' port='3478' transport='tcp' username='1764748800' password='Zm9v' expires='2026-12-03T07:00:00Z' restricted='1'/></services></iq>",
    "sm": "<enabled xmlns='urn:xmpp:sm:3' id='c2f1' resume='true' max='60'/>",
}
for name, message in xmpp_messages.items():
    write("xmpp", name + ".xml", message)

# Jingle: Chromium's own SDP (Tests/JingleTests/Fixtures, captured by Scripts/jingle_browser.py),
# cut to its first lines so libFuzzer mutates it quickly, the trickled candidates, and Jingle XML
# in the shapes XEP-0166/0167/0176/0320/0343/0353 give.
jingle_fixtures = os.path.join(root, "Tests/JingleTests/Fixtures")
for name in sorted(os.listdir(jingle_fixtures)):
    path = os.path.join(jingle_fixtures, name)
    if name.endswith(".sdp"):
        text = open(path).read()
        write("jingle", name, text if len(text) < 2000 else text[:2000].rsplit("\n", 1)[0] + "\n")
    elif name.endswith("-candidates.json"):
        for index, candidate in enumerate(json.load(open(path))[:1]):
            write("jingle", name[:-5] + f"-{index}.txt", candidate["candidate"])
jingle_messages = {
    "initiate": "<jingle xmlns='urn:xmpp:jingle:1' action='session-initiate' sid='s1' initiator='a@b.c/d'><content creator='initiator' name='0'><description xmlns='urn:xmpp:jingle:apps:rtp:1' media='audio'><payload-type id='111' name='opus' clockrate='48000' channels='2'><parameter name='minptime' value='10'/><rtcp-fb xmlns='urn:xmpp:jingle:apps:rtp:rtcp-fb:0' type='transport-cc'/></payload-type><rtp-hdrext xmlns='urn:xmpp:jingle:apps:rtp:rtp-hdrext:0' id='1' uri='urn:ietf:params:rtp-hdrext:ssrc-audio-level'/><rtcp-mux/><source xmlns='urn:xmpp:jingle:apps:rtp:ssma:0' ssrc='1'><parameter name='cname' value='x'/></source><ssrc-group xmlns='urn:xmpp:jingle:apps:rtp:ssma:0' semantics='FID'><source ssrc='1'/><source ssrc='2'/></ssrc-group></description><transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' ufrag='u' pwd='p'><fingerprint xmlns='urn:xmpp:jingle:apps:dtls:0' hash='sha-256' setup='actpass'>AB:CD</fingerprint><candidate component='1' foundation='1' generation='0' id='c' ip='192.0.2.1' port='9' priority='1' protocol='udp' type='host'/></transport></content><group xmlns='urn:xmpp:jingle:apps:grouping:0' semantics='BUNDLE'><content name='0'/></group></jingle>",
    "datachannel": "<jingle xmlns='urn:xmpp:jingle:1' action='session-accept' sid='s1'><content creator='initiator' name='0'><description xmlns='urn:xmpp:jingle:transports:webrtc-datachannel:0'/><transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' ufrag='u' pwd='p'><sctpmap xmlns='urn:xmpp:jingle:transports:dtls-sctp:1' number='5000' protocol='webrtc-datachannel' max-message-size='262144'/></transport></content></jingle>",
    "terminate": "<jingle xmlns='urn:xmpp:jingle:1' action='session-terminate' sid='s1'><reason><success/><text>bye</text></reason></jingle>",
    "propose": "<propose xmlns='urn:xmpp:jingle-message:0' id='s1'><description xmlns='urn:xmpp:jingle:apps:rtp:1' media='audio'/></propose>",
    "reject": "<reject xmlns='urn:xmpp:jingle-message:0' id='s1'><reason xmlns='urn:xmpp:jingle:1'><busy/></reason></reject>",
}
for name, message in jingle_messages.items():
    write("jingle", name + ".xml", message)
