"""Signs payloads as the App Store does, with the test chain bench/run.sh makes: compact JWS,
ES256 by the leaf, x5c = [leaf, intermediate, root], the raw 64-byte R||S signature.
Shared by make_notifications.py and make_realtime.py. Needs the `cryptography` package."""
import base64
import json

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class AppStoreSigner:
    """The leaf key and x5c header of the chain in `chain` (leaf.key, leaf.pem, intermediate.pem, root.pem)."""

    def __init__(self, chain: str):
        with open(f"{chain}/leaf.key", "rb") as f:
            self.key = serialization.load_pem_private_key(f.read(), password=None)
        x5c = []
        for name in ("leaf", "intermediate", "root"):
            with open(f"{chain}/{name}.pem", "rb") as f:
                der = x509.load_pem_x509_certificate(f.read()).public_bytes(serialization.Encoding.DER)
            x5c.append(base64.b64encode(der).decode("ascii"))
        self.header = b64url(json.dumps({"alg": "ES256", "x5c": x5c}, separators=(",", ":")).encode())
        self.algorithm = ec.ECDSA(hashes.SHA256())

    def sign(self, payload: dict) -> str:
        """`payload` as a compact JWS."""
        signing_input = self.header + "." + b64url(json.dumps(payload, separators=(",", ":")).encode())
        r, s = decode_dss_signature(self.key.sign(signing_input.encode("ascii"), self.algorithm))
        return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
