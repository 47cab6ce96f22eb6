package io.tablestorecdc.checkpoint.settings;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import io.tablestorecdc.checkpoint.model.TunnelType;
import java.util.Optional;

/**
 * Whether the source creates its tunnel when it is missing, and of which type (option {@code
 * tunnel.create}).
 */
@PublicEvolving
public enum TunnelCreation {
    /** The tunnel must exist; the source fails with a clear message otherwise. */
    NONE("none"),
    /** Create a stream (incremental) tunnel. */
    STREAM("stream"),
    /** Create a base-data (full data) tunnel: the source reads a snapshot of the table and ends. */
    BASE("base"),
    /** Create a tunnel that reads the full data, then the stream. */
    BASE_AND_STREAM("base-and-stream");

    private final String code;

    TunnelCreation(String code) {
        this.code = code;
    }

    /** The option value, e.g. {@code base-and-stream}. */
    public String code() {
        return code;
    }

    /** The option value, as {@link #code()}. */
    @Override
    public String toString() {
        return code;
    }

    /** The type of tunnel to create; empty for {@link #NONE}. */
    public Optional<TunnelType> tunnelType() {
        return switch (this) {
            case NONE -> Optional.empty();
            case STREAM -> Optional.of(TunnelType.STREAM);
            case BASE -> Optional.of(TunnelType.BASE_DATA);
            case BASE_AND_STREAM -> Optional.of(TunnelType.BASE_AND_STREAM);
        };
    }

    /**
     * Whether a tunnel created this way has a stream part, the part {@code tunnel.start} positions.
     */
    public boolean createsStream() {
        return this == STREAM || this == BASE_AND_STREAM;
    }

    /**
     * Parses an option value (case-insensitive, surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the option, the value and the accepted values
     */
    public static TunnelCreation fromCode(String value) {
        return OptionValues.choiceOf(SourceOption.TUNNEL_CREATE.key(), value, NONE);
    }
}
