# The spec's step-1 adapter (first legal move), kept running: one request
# line in, one answer line out, repeated.
import json
import sys

for line in sys.stdin:
    position = json.loads(line)
    legal = position["legal_moves"]
    move = legal[0] if legal else -1
    print(json.dumps({"move": move}), flush=True)
