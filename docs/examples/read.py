#!/usr/bin/env python3
"""Reads a document through mrtdd with the Python standard library only (http.client over AF_UNIX).

    read.py [--socket PATH] [--reader NAME] (--mrz-key DOCNO,YYMMDD,YYMMDD | --can NNNNNN) [--face FILE]

Creates a read job (POST /v1/reads?wait=true), prints the verdict and the holder's name, writes the face
(JPEG as stored, JPEG 2000 converted to PNG by the daemon) when asked, and exits 0 (valid/unverified), 4 (invalid) or 1 (failed),
like `mrtdctl read`. See docs/openapi.yaml for the API."""
import argparse
import http.client
import json
import os
import socket
import sys


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=120):
        super().__init__("mrtdd", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def call(socket_path, method, path, body=None):
    connection = UnixHTTPConnection(socket_path)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    answer = connection.getresponse()
    data = answer.read()
    connection.close()
    return answer.status, answer.getheader("Content-Type", ""), data


def main():
    parser = argparse.ArgumentParser(description="Read a document through mrtdd.")
    parser.add_argument("--socket", default=os.environ.get("MRTDD_SOCKET", "/run/mrtdd/mrtdd.sock"))
    parser.add_argument("--reader")
    parser.add_argument("--mrz-key", help="DOCNO,YYMMDD,YYMMDD")
    parser.add_argument("--can")
    parser.add_argument("--face", help="write the face image (JPEG, or PNG for JPEG 2000) to this file")
    args = parser.parse_args()
    if bool(args.mrz_key) == bool(args.can):
        parser.error("give exactly one of --mrz-key and --can")
    if args.mrz_key:
        parts = args.mrz_key.split(",")
        if len(parts) != 3:
            parser.error("--mrz-key: DOCNO,YYMMDD,YYMMDD")
        access = {"mrzKey": {"documentNumber": parts[0], "dateOfBirth": parts[1], "dateOfExpiry": parts[2]}}
    else:
        access = {"can": args.can}
    request = {"access": access}
    if args.reader:
        request["reader"] = args.reader

    try:
        status, _, data = call(args.socket, "POST", "/v1/reads?wait=true", request)
    except OSError as error:
        print(f"read.py: cannot reach mrtdd at {args.socket}: {error}", file=sys.stderr)
        return 1
    job = json.loads(data)
    if status != 200:
        print(f"read.py: mrtdd answered {status} {job.get('error')}: {job.get('message')}", file=sys.stderr)
        return 1
    if job["state"] != "done":
        error = job.get("error") or {}
        print(f"read {job['state']}: {error.get('error')}: {error.get('message')}")
        return 1
    result = job["result"]
    document = result["document"]
    # The status and what it covers (never act on a bare "valid" beside a failed check: the
    # detail says e.g. "authentic: ...; document expired" or names the failed checks).
    print(f"status: {result['status']}" + (f" ({result['statusDetail']})" if result.get("statusDetail") else ""))
    for warning in result.get("warnings", []):
        if warning.startswith("paceFallback:"):
            print(f"downgrade: {warning}")
    print(f"name: {document['primaryIdentifier']}, {document['secondaryIdentifier']}")
    print(f"document: {document['documentCode']} {document['documentNumber']} ({document['issuingState']})")
    for name, check in result["checks"].items():
        if isinstance(check, dict) and "result" in check:
            print(f"{name}: {check['result']}" + (f" ({check['reason']})" if check.get("reason") else ""))
    if args.face:
        # As stored (JPEG or JPEG 2000); JPEG 2000 converted to PNG by the daemon.
        status, content_type, data = call(args.socket, "GET", f"/v1/reads/{job['id']}/face")
        if status == 200 and content_type in ("image/jp2", "image/j2k"):
            status, content_type, data = call(args.socket, "GET", f"/v1/reads/{job['id']}/face?format=png")
        if status != 200:
            print(f"read.py: no face image ({status})", file=sys.stderr)
            return 1
        with open(args.face, "wb") as f:
            f.write(data)
        print(f"face: {args.face} ({content_type}, {len(data)} bytes)")
    return {"valid": 0, "unverified": 0, "invalid": 4}.get(result["status"], 1)


if __name__ == "__main__":
    sys.exit(main())
