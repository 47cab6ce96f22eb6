package io.tablestorecdc.checkpoint.model;

/** The kind of tunnel: full data only, incremental only, or full data then incremental. */
public enum TunnelType {
    BASE_DATA,
    STREAM,
    BASE_AND_STREAM;

    /** Base-data tunnels end once every channel has finished; the others run forever. */
    public boolean isBounded() {
        return this == BASE_DATA;
    }
}
