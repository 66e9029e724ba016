#!/bin/bash
# Two Syncthing 1.19 "devices" on one Linux host, loopback only.
# usage: two-syncthing.sh ROOT [GUI_A GUI_B LISTEN_A LISTEN_B]
#   creates ROOT/{a,b} homes and ROOT/{a,b}-data folders; the four ports default to 8385 8386
#   22001 22002 (the tests pass free ones, so two runs on one machine never talk to each other).
set -euo pipefail
ROOT=${1:?root}; rm -rf "$ROOT"; mkdir -p "$ROOT"/{a-data,b-data}
GUI_A=${2:-8385}; GUI_B=${3:-8386}; LIS_A=${4:-22001}; LIS_B=${5:-22002}
gui() { [ "$1" = a ] && echo 127.0.0.1:$GUI_A || echo 127.0.0.1:$GUI_B; }
lis() { [ "$1" = a ] && echo $LIS_A || echo $LIS_B; }
api() { local n=$1; shift; curl -sf -H "X-API-Key: key-$n" "$@"; }
for n in a b; do
  syncthing generate --home="$ROOT/$n" --no-default-folder >/dev/null
  sed -i -e "s#<address>127.0.0.1:8384</address>#<address>$(gui $n)</address>#" \
    -e "s#<apikey>.*</apikey>#<apikey>key-$n</apikey>#" \
    -e "s#<listenAddress>default</listenAddress>#<listenAddress>tcp://127.0.0.1:$(lis $n)</listenAddress>#" \
    -e "s#<globalAnnounceEnabled>true#<globalAnnounceEnabled>false#" \
    -e "s#<localAnnounceEnabled>true#<localAnnounceEnabled>false#" \
    -e "s#<relaysEnabled>true#<relaysEnabled>false#" -e "s#<natEnabled>true#<natEnabled>false#" \
    -e "s#<startBrowser>true#<startBrowser>false#" -e "s#<urAccepted>0#<urAccepted>-1#" \
    -e "s#<autoUpgradeIntervalH>12#<autoUpgradeIntervalH>0#" \
    -e "s#<crashReportingEnabled>true#<crashReportingEnabled>false#" \
    -e "s#<reconnectionIntervalS>60#<reconnectionIntervalS>2#" "$ROOT/$n/config.xml"
  syncthing serve --home="$ROOT/$n" --no-browser --no-restart --no-upgrade --logflags=3 >"$ROOT/$n.log" 2>&1 &
  echo $! >"$ROOT/$n.pid"
done
for n in a b; do until api $n "http://$(gui $n)/rest/system/ping" >/dev/null 2>&1; do sleep 0.2; done; done
IDA=$(api a http://$(gui a)/rest/system/status | python3 -c 'import json,sys;print(json.load(sys.stdin)["myID"])')
IDB=$(api b http://$(gui b)/rest/system/status | python3 -c 'import json,sys;print(json.load(sys.stdin)["myID"])')
api a -X POST http://$(gui a)/rest/config/devices -d "{\"deviceID\":\"$IDB\",\"name\":\"b\",\"addresses\":[\"tcp://127.0.0.1:$LIS_B\"]}"
api b -X POST http://$(gui b)/rest/config/devices -d "{\"deviceID\":\"$IDA\",\"name\":\"a\",\"addresses\":[\"tcp://127.0.0.1:$LIS_A\"]}"
for n in a b; do
  api $n -X POST http://$(gui $n)/rest/config/folders -d "{\"id\":\"ws\",\"label\":\"ws\",\"path\":\"$ROOT/$n-data\",\"type\":\"sendreceive\",\"fsWatcherEnabled\":true,\"fsWatcherDelayS\":1,\"rescanIntervalS\":3600,\"maxConflicts\":-1,\"devices\":[{\"deviceID\":\"$IDA\"},{\"deviceID\":\"$IDB\"}]}"
done
# wait until A sees B connected
for i in $(seq 1 150); do
  api a http://$(gui a)/rest/system/connections | python3 -c "import json,sys;sys.exit(0 if json.load(sys.stdin)['connections']['$IDB']['connected'] else 1)" && break; sleep 0.2
done
echo "IDA=$IDA IDB=$IDB connected after ~$((i/5))s"
