import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";

/**
 * A passkey authenticator in software, for the unit tests of the ceremonies:
 * an ES256 key, "none" attestation, user presence and verification always
 * given, a signature counter. It answers what navigator.credentials gives the
 * page, as the JSON @simplewebauthn/browser posts. The browser tests use
 * Chromium's own virtual authenticator instead.
 */

// The few CBOR types an attestation needs (RFC 8949): unsigned and negative integers, bytes, text, maps.
function head(major: number, length: number) {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  const bytes = Buffer.alloc(3);
  bytes[0] = (major << 5) | 25;
  bytes.writeUInt16BE(length, 1);
  return bytes;
}
type Cbor = number | string | Uint8Array | Map<number | string, Cbor>;
function cbor(value: Cbor): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item)])]);
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

type CreationOptions = { challenge: string; rp: { id?: string }; user: { id: string } };
type RequestOptions = { challenge: string; rpId?: string };

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly key: KeyObject;
  private readonly publicKey: KeyObject;
  counter = 0;
  userHandle = "";

  constructor() {
    const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.key = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id() {
    return b64url(this.credentialId);
  }

  private authData(rpId: string, flags: number, attested?: Buffer) {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** What navigator.credentials.create() answers `options` with, on a page at `origin`. */
  register(options: CreationOptions, origin: string, { rpId = options.rp.id!, flags = 0x45 } = {}) {
    const jwk = this.publicKey.export({ format: "jwk" });
    const coseKey = new Map<number, Cbor>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), length, this.credentialId, cbor(coseKey)]);
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", this.authData(rpId, flags, attested)],
      ]),
    );
    this.userHandle = options.user.id;
    const clientData = JSON.stringify({
      type: "webauthn.create",
      challenge: options.challenge,
      origin,
      crossOrigin: false,
    });
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      clientExtensionResults: {},
      authenticatorAttachment: "platform" as const,
      response: {
        clientDataJSON: b64url(Buffer.from(clientData)),
        attestationObject: b64url(attestationObject),
        transports: ["internal" as const],
      },
    };
  }

  /** What navigator.credentials.get() answers `options` with, on a page at `origin`: the counter moves on. */
  signIn(
    options: RequestOptions,
    origin: string,
    // Flags 0x05: the user present and verified (a PIN, a fingerprint).
    { rpId = options.rpId!, counter = this.counter + 1, flags = 0x05 } = {},
  ) {
    this.counter = counter;
    const authenticatorData = this.authData(rpId, flags);
    const clientData = Buffer.from(
      JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin, crossOrigin: false }),
    );
    const signature = sign("sha256", Buffer.concat([authenticatorData, sha256(clientData)]), this.key);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      clientExtensionResults: {},
      authenticatorAttachment: "platform" as const,
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        userHandle: this.userHandle,
      },
    };
  }
}
