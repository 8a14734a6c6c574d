// An address's coins of one type, read from the full node's StateService a page at a time, with
// their BCS when the signer needs it (it checks a sweep's coins against their contents; the SDK's
// listCoins leaves it out). No Solana counterpart: a Solana account holds one balance, not coins.
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { normalizeSuiAddress } from "@mysten/sui/utils";

export interface OwnedCoin {
  /** Normalized as transaction inputs are (ownedInputs), so sets of ids compare like with like. */
  objectId: string;
  version: string;
  digest: string;
  balance: bigint;
  /** The object's BCS, when asked for. */
  bcs?: Uint8Array;
}

const PAGE = 200;

/** Every coin of `coinType` (a normalized struct tag) that `owner` holds, page after page. */
export async function listOwnedCoins(
  client: SuiGrpcClient,
  owner: string,
  coinType: string,
  options: { bcs?: boolean } = {},
): Promise<OwnedCoin[]> {
  const paths = ["object_id", "version", "digest", "balance"];
  if (options.bcs) paths.push("bcs");
  const out: OwnedCoin[] = [];
  let pageToken: Uint8Array | undefined;
  do {
    const { response } = await client.stateService.listOwnedObjects({
      owner,
      objectType: `0x2::coin::Coin<${coinType}>`,
      pageSize: PAGE,
      pageToken,
      readMask: { paths },
    });
    for (const object of response.objects) {
      if (!object.objectId || object.version === undefined || !object.digest || object.balance === undefined)
        throw new Error(`the full node listed a coin of ${owner} without its id, version, digest or balance`);
      const bcs = object.bcs?.value;
      if (options.bcs && !bcs)
        throw new Error(`the full node listed coin ${object.objectId} without its BCS`);
      out.push({
        objectId: normalizeSuiAddress(object.objectId),
        version: object.version.toString(),
        digest: object.digest,
        balance: object.balance,
        ...(options.bcs ? { bcs } : {}),
      });
    }
    pageToken = response.nextPageToken;
  } while (pageToken && pageToken.length > 0);
  return out;
}
