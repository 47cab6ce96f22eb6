package io.tablestorecdc.checkpoint.settings;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;

/**
 * What a source of several tables does when a table it reads is gone (dropped): option {@value
 * #OPTION_KEY}.
 */
@PublicEvolving
public enum DroppedTablePolicy {
    /**
     * Close the table's tunnel client, log a warning, count it in {@code tablesDropped} and go on
     * with the other tables (the default: a dropped table's unread changes went with it).
     */
    SKIP,
    /** Stop the query or job with an error that names the table. */
    FAIL;

    /** The option key that selects the policy. */
    public static final String OPTION_KEY = "on.dropped.table";

    /** The option value, in lower case: {@code skip}. */
    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The error a source of several tables stops with under {@link #FAIL}.
     *
     * @param table the table that is gone
     * @param instance the instance it was read from
     */
    public static IllegalStateException dropped(String table, String instance) {
        return new IllegalStateException(
                "Table '"
                        + table
                        + "' of instance '"
                        + instance
                        + "' is gone (dropped) while the source read it, and "
                        + OPTION_KEY
                        + "=fail stops the source. Leave the table out (table.exclude, or drop it"
                        + " from table.name) and restart, or set "
                        + OPTION_KEY
                        + "=skip to go on with the other tables when one is dropped.");
    }
}
