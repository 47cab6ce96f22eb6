package io.tablestorecdc.flink.source.config;

import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.io.Serializable;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Where the stream part of a tunnel this source creates starts: latest, earliest, or at an instant.
 *
 * <p>Used only when the source creates the tunnel; an existing tunnel keeps its own start, and a
 * job restored from a checkpoint or savepoint resumes from its state.
 */
@PublicEvolving
public final class StartPosition implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final StartPosition LATEST = new StartPosition(TunnelStart.Kind.LATEST, null);
    private static final StartPosition EARLIEST =
            new StartPosition(TunnelStart.Kind.EARLIEST, null);

    private final TunnelStart.Kind kind;
    private final Instant at;

    private StartPosition(TunnelStart.Kind kind, Instant at) {
        this.kind = kind;
        this.at = at;
    }

    /** Only changes made after the tunnel is created. */
    public static StartPosition latest() {
        return LATEST;
    }

    /** The oldest change still in the stream's retention. */
    public static StartPosition earliest() {
        return EARLIEST;
    }

    /** Changes from {@code instant} on. */
    public static StartPosition at(Instant instant) {
        return new StartPosition(TunnelStart.Kind.AT_INSTANT, Objects.requireNonNull(instant));
    }

    /** Parses {@code latest}, {@code earliest} or an ISO-8601 instant. */
    public static StartPosition parse(String value) {
        String text = value == null ? "" : value.trim();
        if (text.equalsIgnoreCase("latest")) {
            return latest();
        }
        if (text.equalsIgnoreCase("earliest")) {
            return earliest();
        }
        try {
            return at(Instant.parse(text));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "Invalid "
                            + TablestoreCdcOptions.TUNNEL_START.key()
                            + " '"
                            + value
                            + "': use latest, earliest or an ISO-8601 instant such as"
                            + " 2026-01-31T08:00:00Z");
        }
    }

    public TunnelStart.Kind kind() {
        return kind;
    }

    public Optional<Instant> instant() {
        return Optional.ofNullable(at);
    }

    /** The core's start for creating a tunnel. */
    public TunnelStart toTunnelStart() {
        switch (kind) {
            case EARLIEST:
                return TunnelStart.earliest();
            case AT_INSTANT:
                return TunnelStart.at(at);
            default:
                return TunnelStart.latest();
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StartPosition
                && ((StartPosition) o).kind == kind
                && Objects.equals(((StartPosition) o).at, at);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, at);
    }

    /** The option value form, which {@link #parse} reads back. */
    @Override
    public String toString() {
        return kind == TunnelStart.Kind.AT_INSTANT ? at.toString() : kind.name().toLowerCase();
    }
}
