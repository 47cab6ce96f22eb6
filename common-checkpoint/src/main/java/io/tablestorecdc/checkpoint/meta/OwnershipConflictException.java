package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import java.util.Optional;

/** Another consumer holds a live lease on the tunnel (invariant 8); this one must not start. */
@PublicEvolving
public final class OwnershipConflictException extends MetaTableException {

    private static final long serialVersionUID = 1L;

    private final String holder;
    private final String metaTable;
    private final String situation;

    OwnershipConflictException(String message) {
        super(message);
        this.holder = null;
        this.metaTable = null;
        this.situation = null;
    }

    /**
     * The lease of {@code holder} in {@code metaTable} blocks this consumer: {@code situation} says
     * how, and the message ends with how to release that lease.
     */
    OwnershipConflictException(String situation, String holder, String metaTable) {
        this(
                situation,
                holder,
                metaTable,
                "release its lease at once with the tablestore-cdc command line (lease release, see"
                        + " docs/operations.md).");
    }

    private OwnershipConflictException(
            String situation, String holder, String metaTable, String release) {
        super(situation + release);
        this.holder = holder;
        this.metaTable = metaTable;
        this.situation = situation;
    }

    /** The consumer that holds the lease, when one does (not when owners kept changing). */
    public Optional<String> holder() {
        return Optional.ofNullable(holder);
    }

    /**
     * This conflict with the command that releases the holder's lease spelled out for the tunnel
     * {@code tunnelName} of {@code tableName}, ready to copy; the same conflict when no one holds
     * it.
     */
    public OwnershipConflictException withReleaseCommand(String tableName, String tunnelName) {
        if (holder == null) {
            return this;
        }
        StringBuilder command =
                new StringBuilder("bin/tablestore-cdc lease release --table ")
                        .append(shellWord(tableName))
                        .append(" --tunnel ")
                        .append(shellWord(tunnelName))
                        .append(" --consumer ")
                        .append(shellWord(holder));
        if (!SdkMetaTableClient.DEFAULT_TABLE_NAME.equals(metaTable)) {
            command.append(" --meta-table ").append(shellWord(metaTable));
        }
        OwnershipConflictException named =
                new OwnershipConflictException(
                        situation,
                        holder,
                        metaTable,
                        "release its lease at once with the tablestore-cdc command line: "
                                + command
                                + " (see docs/operations.md).");
        named.setStackTrace(getStackTrace());
        return named;
    }

    /** {@code word} as one shell word: quoted unless it holds only characters a shell leaves be. */
    private static String shellWord(String word) {
        if (!word.isEmpty() && word.matches("[A-Za-z0-9_./:=@%+,-]+")) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
