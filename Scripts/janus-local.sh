#!/usr/bin/env bash
# Runs Janus in the foreground on 127.0.0.1 with the rig's configuration (Rig/janus/*.jcfg:
# VideoRoom room 1234 with notify_joining, HTTP transport only), for `callscope call`.
#   bash Scripts/janus-local.sh [HTTP_PORT]      # default: a free port; prints the API URL
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')}"
rtp_low=$(( 20000 + RANDOM % 30000 ))
conf="$(mktemp -d /tmp/callscope-janus-local.XXXXXX)"
for file in Rig/janus/*.jcfg; do
    sed -e "s|@@CONFIGS_FOLDER@@|$conf|" -e "s|@@RTP_PORT_RANGE@@|$rtp_low-$((rtp_low + 199))|" \
        -e "s|@@ICE_ENFORCE_LIST@@|lo|" -e "s|@@HTTP_PORT@@|$port|" -e "s|@@HTTP_IP@@|127.0.0.1|" \
        "$file" > "$conf/$(basename "$file")"
done
echo "Janus API: http://127.0.0.1:$port/janus   (config in $conf; Ctrl-C stops it)" >&2
exec janus -F "$conf" -C "$conf/janus.jcfg" -i 127.0.0.1 -o -d 3
