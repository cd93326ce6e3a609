#!/bin/sh
# Reads a document through mrtdd with curl and jq.
#
#   read.sh DOCNO YYMMDD YYMMDD        (MRZ key)
#   read.sh --can NNNNNN               (card access number)
#
# MRTDD_SOCKET chooses the socket (default /run/mrtdd/mrtdd.sock). Prints the verdict and the holder's
# name; exits 0 (valid/unverified), 4 (invalid) or 1 (failed), like `mrtdctl read`.
set -eu
socket=${MRTDD_SOCKET:-/run/mrtdd/mrtdd.sock}

if [ "${1:-}" = "--can" ] && [ $# -eq 2 ]; then
    body=$(jq -n --arg can "$2" '{access: {can: $can}}')
elif [ $# -eq 3 ]; then
    body=$(jq -n --arg d "$1" --arg b "$2" --arg e "$3" \
        '{access: {mrzKey: {documentNumber: $d, dateOfBirth: $b, dateOfExpiry: $e}}}')
else
    echo "usage: $0 DOCNO YYMMDD YYMMDD | $0 --can NNNNNN" >&2
    exit 64
fi

# The request body (with the access key) goes on stdin, not the command line (ps shows arguments).
job=$(printf '%s' "$body" | curl -sS --unix-socket "$socket" -H 'Content-Type: application/json' \
    --data-binary @- 'http://mrtdd/v1/reads?wait=true') || { echo "read.sh: cannot reach mrtdd at $socket" >&2; exit 1; }

if [ "$(printf '%s' "$job" | jq -r '.state // empty')" != "done" ]; then
    printf '%s' "$job" | jq -r '"read failed: \(.error.error // .error): \(.error.message // .message)"'
    exit 1
fi
printf '%s' "$job" | jq -r '.result |
    "status: \(.status)\(if .statusDetail then " (\(.statusDetail))" else "" end)",
    (.warnings[]? | select(startswith("paceFallback:")) | "downgrade: \(.)"),
    "name: \(.document.primaryIdentifier), \(.document.secondaryIdentifier)",
    "document: \(.document.documentCode) \(.document.documentNumber) (\(.document.issuingState))",
    (.checks | to_entries[] | select(.value | type == "object" and has("result"))
        | "\(.key): \(.value.result)\(if .value.reason then " (\(.value.reason))" else "" end)")'
case $(printf '%s' "$job" | jq -r '.result.status') in
    valid|unverified) exit 0 ;;
    invalid) exit 4 ;;
    *) exit 1 ;;
esac
