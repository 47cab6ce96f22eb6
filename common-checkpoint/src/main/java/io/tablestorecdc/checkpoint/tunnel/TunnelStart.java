package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a newly created tunnel's stream part starts, and optionally where it ends.
 *
 * <p>Only used when this consumer creates the tunnel; an existing tunnel keeps the start it was
 * created with. Base-data tunnels ignore it.
 *
 * @param kind latest, earliest or at an instant
 * @param at the start instant, present exactly when {@code kind} is {@link Kind#AT_INSTANT}
 * @param end an optional end instant of the stream
 */
@PublicEvolving
public record TunnelStart(Kind kind, Optional<Instant> at, Optional<Instant> end) {

    /** How the start is chosen. */
    public enum Kind {
        /** Only changes made after the tunnel is created. */
        LATEST,
        /** The oldest change still in the stream's retention. */
        EARLIEST,
        /** Changes from a point in time. */
        AT_INSTANT
    }

    public TunnelStart {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(end, "end");
        if ((kind == Kind.AT_INSTANT) != at.isPresent()) {
            throw new IllegalArgumentException(
                    "A tunnel start has an instant exactly when its kind is AT_INSTANT, got "
                            + kind
                            + " with "
                            + at);
        }
        if (at.isPresent() && end.isPresent() && !end.get().isAfter(at.get())) {
            throw new IllegalArgumentException(
                    "The tunnel end " + end.get() + " must be after its start " + at.get());
        }
    }

    /** The stream from the tunnel's creation on (option value {@code latest}). */
    public static TunnelStart latest() {
        return new TunnelStart(Kind.LATEST, Optional.empty(), Optional.empty());
    }

    /** The stream from its oldest retained change (option value {@code earliest}). */
    public static TunnelStart earliest() {
        return new TunnelStart(Kind.EARLIEST, Optional.empty(), Optional.empty());
    }

    /** The stream from the changes committed at {@code start} on. */
    public static TunnelStart at(Instant start) {
        return new TunnelStart(Kind.AT_INSTANT, Optional.of(start), Optional.empty());
    }

    /** This start with the stream ending at {@code endInstant}. */
    public TunnelStart until(Instant endInstant) {
        return new TunnelStart(kind, at, Optional.of(endInstant));
    }
}
