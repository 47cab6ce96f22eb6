package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;

/**
 * This consumer's durable view of a channel, as recorded in the meta table.
 *
 * <ul>
 *   <li>{@code PENDING}: adopted at the server's checkpoint but not read yet (for example a child
 *       the server still holds in {@code WAIT}).
 *   <li>{@code READING}: read in at least one committed batch and not finished.
 *   <li>{@code FINISHED}: its last record is in a committed batch; kept as a tombstone so that it
 *       is never read again.
 * </ul>
 */
@Internal
public enum ChannelLifecycle {
    PENDING("P"),
    READING("R"),
    FINISHED("F");

    private final String code;

    ChannelLifecycle(String code) {
        this.code = code;
    }

    /** Stable code for persisted state; never the ordinal. */
    public String code() {
        return code;
    }

    public static ChannelLifecycle fromCode(String code) {
        for (ChannelLifecycle state : values()) {
            if (state.code.equals(code)) {
                return state;
            }
        }
        throw new IllegalArgumentException(
                "Unknown channel lifecycle code '" + code + "': expected one of P, R, F");
    }
}
