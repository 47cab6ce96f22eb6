package io.tablestorecdc.flink.source.config;

import io.tablestorecdc.checkpoint.settings.TunnelStartText;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.io.Serializable;
import java.time.Instant;
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

    /** The position of a core start (its end, if any, is not part of a start position). */
    public static StartPosition of(TunnelStart start) {
        switch (start.kind()) {
            case EARLIEST:
                return earliest();
            case AT_INSTANT:
                return at(start.at().orElseThrow());
            default:
                return latest();
        }
    }

    /**
     * Parses {@code latest}, {@code earliest} or an ISO-8601 instant, as option {@code
     * tunnel.start} is read in either engine.
     *
     * @throws IllegalArgumentException naming the option, the value and the accepted values
     */
    public static StartPosition parse(String value) {
        return of(TunnelStartText.parse(value));
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
        return TunnelStartText.format(toTunnelStart());
    }
}
