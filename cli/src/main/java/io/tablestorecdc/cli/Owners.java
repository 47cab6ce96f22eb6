package io.tablestorecdc.cli;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import io.tablestorecdc.checkpoint.consumer.OwnerLeaseKeeper;
import io.tablestorecdc.checkpoint.meta.OwnerLease;
import io.tablestorecdc.checkpoint.model.Engine;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/** How an owner lease reads: its consumer, engine, expiry and whether it is still renewed. */
final class Owners {

    private Owners() {}

    /** "live" (renewed lately), "stale" (not renewed, not expired) or "expired". */
    static String state(OwnerLease lease, Instant now) {
        if (lease.expiresAtMillis() <= now.toEpochMilli()) {
            return "expired";
        }
        return OwnerLeaseKeeper.isRenewing(lease, now) ? "live" : "stale";
    }

    static String engine(OwnerLease lease) {
        Engine engine = Engine.ofConsumerId(lease.consumerId());
        return engine.name().toLowerCase(Locale.ROOT);
    }

    /** One line: consumer 'x' (spark query), lease until T, last renewed T (live). */
    static String describe(Optional<OwnerLease> owner, Instant now) {
        if (owner.isEmpty()) {
            return "none (no consumer holds the tunnel)";
        }
        OwnerLease lease = owner.get();
        Engine engine = Engine.ofConsumerId(lease.consumerId());
        return "consumer '"
                + lease.consumerId()
                + "' ("
                + engine(lease)
                + " "
                + engine.consumer()
                + "), lease until "
                + Texts.instant(Instant.ofEpochMilli(lease.expiresAtMillis()))
                + ", last renewed "
                + Texts.instant(OwnerLeaseKeeper.lastRenewal(lease))
                + " ("
                + state(lease, now)
                + ")";
    }

    static JsonObject json(OwnerLease lease, Instant now) {
        JsonObject o = new JsonObject();
        o.addProperty("consumer", lease.consumerId());
        o.addProperty("engine", engine(lease));
        o.addProperty("epoch", lease.epoch());
        o.addProperty("expires_at", Instant.ofEpochMilli(lease.expiresAtMillis()).toString());
        o.addProperty("last_renewal", OwnerLeaseKeeper.lastRenewal(lease).toString());
        o.addProperty("state", state(lease, now));
        return o;
    }

    static JsonElement json(Optional<OwnerLease> owner, Instant now) {
        return owner.<JsonElement>map(l -> json(l, now)).orElse(JsonNull.INSTANCE);
    }
}
