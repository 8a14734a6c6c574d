// `npm run doctor`: checks a live configuration (this process's environment, the variables every
// service reads) and prints what is wrong in plain words; exits 1 when anything is.
import { formatFindings } from "./doctor/finding.js";
import { runDoctor } from "./doctor/run-doctor.js";

const findings = await runDoctor(process.env);
process.stdout.write(formatFindings(findings, process.stdout.isTTY === true));
process.exit(findings.every((f) => f.ok) ? 0 : 1);
