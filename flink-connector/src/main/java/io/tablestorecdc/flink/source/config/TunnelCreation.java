package io.tablestorecdc.flink.source.config;

import io.tablestorecdc.checkpoint.model.TunnelType;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.flink.annotation.PublicEvolving;

/** Whether the source creates its tunnel when it is missing, and of which type. */
@PublicEvolving
public enum TunnelCreation {
    /** The tunnel must exist; the source fails with a clear message otherwise. */
    NONE("none"),
    /** Create a stream (incremental) tunnel. */
    STREAM("stream"),
    /** Create a base-data (full data) tunnel; the source is then bounded. */
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

    /** The type of tunnel to create; empty for {@link #NONE}. */
    public Optional<TunnelType> tunnelType() {
        switch (this) {
            case STREAM:
                return Optional.of(TunnelType.STREAM);
            case BASE:
                return Optional.of(TunnelType.BASE_DATA);
            case BASE_AND_STREAM:
                return Optional.of(TunnelType.BASE_AND_STREAM);
            default:
                return Optional.empty();
        }
    }

    /** Parses an option value (case-insensitive). */
    public static TunnelCreation fromCode(String value) {
        for (TunnelCreation creation : values()) {
            if (creation.code.equalsIgnoreCase(value == null ? "" : value.trim())) {
                return creation;
            }
        }
        throw new IllegalArgumentException(
                "Invalid "
                        + TablestoreCdcOptions.TUNNEL_CREATE.key()
                        + " '"
                        + value
                        + "': use one of "
                        + Arrays.stream(values())
                                .map(TunnelCreation::code)
                                .collect(Collectors.joining(", ")));
    }
}
