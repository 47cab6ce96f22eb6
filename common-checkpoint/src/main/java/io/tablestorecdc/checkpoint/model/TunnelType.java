package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;

/** The kind of tunnel: full data only, incremental only, or full data then incremental. */
@PublicEvolving
public enum TunnelType {
    BASE_DATA,
    STREAM,
    BASE_AND_STREAM;

    /** Base-data tunnels end once every channel has finished; the others run forever. */
    public boolean isBounded() {
        return this == BASE_DATA;
    }
}
