package io.tablestorecdc.e2e.handover;

import io.tablestorecdc.e2e.InstanceConnection;

/**
 * What a capture reads: the instance, the table, its tunnel and the meta table both engines use.
 *
 * @param connection the instance and its credentials
 * @param table the data table
 * @param tunnel the tunnel of {@code table}
 * @param metaTable the meta table
 */
public record TunnelTarget(
        InstanceConnection connection, String table, String tunnel, String metaTable) {}
