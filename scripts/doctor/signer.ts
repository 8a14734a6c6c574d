// The signer as settlement reaches it (mTLS with settlement's certificate) and the service wallets
// it reports; what they hold on each chain is the chain package's check (ChainDoctorModule).

import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { SettlementConfig } from "@gateway/config";
import { createSignerClient, type ServiceAddressBook } from "@gateway/signer-client";
import { type Finding, fault, pass, plain, within } from "./finding.js";

/** A certificate closer than this to its end is reported, so it is renewed in time. */
const RENEW_WITHIN_DAYS = 14;

export function checkCertificates(config: SettlementConfig, now = Date.now()): Finding[] {
  const files = {
    SIGNER_CA_FILE: config.SIGNER_CA_FILE,
    SIGNER_CERT_FILE: config.SIGNER_CERT_FILE,
    SIGNER_KEY_FILE: config.SIGNER_KEY_FILE,
  };
  const missing = Object.entries(files).filter(([, file]) => !file);
  if (missing.length) {
    return missing.map(([variable]) =>
      fault("signer certificates", "not set: the signer is reached only over mutual TLS", variable),
    );
  }
  const read = (variable: keyof typeof files) => readFileSync(files[variable]!);
  const findings: Finding[] = [];
  let ca: X509Certificate;
  let cert: X509Certificate;
  try {
    ca = new X509Certificate(read("SIGNER_CA_FILE"));
  } catch (err) {
    return [fault("signer certificates", `not a readable PEM certificate: ${plain(err)}`, "SIGNER_CA_FILE")];
  }
  try {
    cert = new X509Certificate(read("SIGNER_CERT_FILE"));
  } catch (err) {
    return [
      fault("signer certificates", `not a readable PEM certificate: ${plain(err)}`, "SIGNER_CERT_FILE"),
    ];
  }
  for (const [variable, c] of [
    ["SIGNER_CA_FILE", ca],
    ["SIGNER_CERT_FILE", cert],
  ] as const) {
    const end = Date.parse(c.validTo);
    const days = Math.floor((end - now) / 86_400_000);
    if (Date.parse(c.validFrom) > now)
      findings.push(fault("signer certificates", `not valid before ${c.validFrom}`, variable));
    else if (end <= now) findings.push(fault("signer certificates", `expired on ${c.validTo}`, variable));
    else if (days < RENEW_WITHIN_DAYS)
      findings.push(fault("signer certificates", `expires in ${days} days: renew it`, variable));
    else
      findings.push(
        pass(
          "signer certificates",
          `${c.subject.split("\n").join(", ")} valid for ${days} more days`,
          variable,
        ),
      );
  }
  if (!cert.verify(ca.publicKey)) {
    findings.push(
      fault("signer certificates", "the client certificate is not signed by this CA", "SIGNER_CERT_FILE"),
    );
  }
  try {
    if (!cert.checkPrivateKey(createPrivateKey(read("SIGNER_KEY_FILE")))) {
      findings.push(
        fault("signer certificates", "this key is not the client certificate's", "SIGNER_KEY_FILE"),
      );
    } else {
      findings.push(pass("signer certificates", "the key is the client certificate's", "SIGNER_KEY_FILE"));
    }
  } catch (err) {
    findings.push(
      fault("signer certificates", `not a readable private key: ${plain(err)}`, "SIGNER_KEY_FILE"),
    );
  }
  return findings;
}

/** The live service wallets, from the signer. */
export async function readServiceAddresses(
  config: SettlementConfig,
): Promise<{ book?: ServiceAddressBook; finding: Finding }> {
  const file = (path: string | undefined) => (path ? readFileSync(path) : undefined);
  let signer: ReturnType<typeof createSignerClient> | undefined;
  try {
    const [ca, cert, key] = [
      file(config.SIGNER_CA_FILE),
      file(config.SIGNER_CERT_FILE),
      file(config.SIGNER_KEY_FILE),
    ];
    signer = createSignerClient({
      baseUrl: config.SIGNER_URL,
      timeoutMs: 5_000,
      ...(ca && cert && key ? { tls: { ca, cert, key } } : {}),
    });
    const book = await within(signer.getServiceAddresses(), 10_000, "signer");
    return { book, finding: pass("signer", `answers at ${config.SIGNER_URL} and names the service wallets`) };
  } catch (err) {
    return { finding: fault("signer", `did not answer over mTLS: ${plain(err)}`, "SIGNER_URL") };
  } finally {
    signer?.close();
  }
}
