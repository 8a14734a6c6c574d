-- Every API replica caches keypairs by key hash (services/api/src/auth/keypair-cache.ts); any
-- change to a keypair, however it is made, tells them all to drop their cache at once.
create function api_keypairs_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('api_keypairs', '');
  return null;
end $$;
create trigger api_keypairs_notify after update or delete or truncate on api_keypairs
  for each statement execute function api_keypairs_notify();
