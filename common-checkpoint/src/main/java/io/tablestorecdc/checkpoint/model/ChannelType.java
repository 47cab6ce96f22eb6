package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;

/** Whether a channel carries a table's full data or its incremental changes. */
@Internal
public enum ChannelType {
    BASE_DATA("base"),
    STREAM("stream");

    private final String code;

    ChannelType(String code) {
        this.code = code;
    }

    /** Stable code for persisted state; never the ordinal. */
    public String code() {
        return code;
    }

    public static ChannelType fromCode(String code) {
        for (ChannelType type : values()) {
            if (type.code.equals(code)) {
                return type;
            }
        }
        throw new IllegalArgumentException(
                "Unknown channel type code '" + code + "': expected 'base' or 'stream'");
    }
}
