package io.tablestorecdc.e2e.instance;

import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.TunnelClient;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.DeleteRowRequest;
import com.alicloud.openservices.tablestore.model.DeleteTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.PutRowRequest;
import com.alicloud.openservices.tablestore.model.RowDeleteChange;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.StreamSpecification;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import com.alicloud.openservices.tablestore.model.tunnel.CreateTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.DeleteTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.ListTunnelRequest;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelInfo;
import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.e2e.InstanceConnection;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every table (and so every tunnel and meta table) the suite creates is named under one prefix,
 * {@code tsc_ri_<yyyyMMddHHmmss>_<random>_}; {@link #close} deletes what is under it, tunnels
 * first, whatever the tests did. A run killed before that leaves only names under the prefix, which
 * {@link #deleteAll} (or the console) removes later.
 */
final class PrefixedTables implements AutoCloseable {

    /** What every name the suite creates starts with. */
    static final String STEM = "tsc_ri_";

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");
    private static final Pattern NAME = Pattern.compile("^" + STEM + "(\\d{14})_[a-z0-9]+_.*$");
    private static final Duration WRITABLE = Duration.ofMinutes(2);
    private static final Set<String> NOT_YET =
            Set.of(
                    "OTSTableNotReady",
                    "OTSPartitionUnavailable",
                    "OTSServerBusy",
                    "OTSServerUnavailable",
                    "OTSTimeout",
                    "OTSObjectNotExist");
    private static final String PROBE = "~probe";

    private final InstanceConnection connection;
    private final String prefix;
    private final SyncClient sync;
    private final TunnelClient tunnels;

    private PrefixedTables(InstanceConnection connection, String prefix) {
        this.connection = connection;
        this.prefix = prefix;
        this.sync = connection.syncClient();
        this.tunnels = connection.tunnelClient();
    }

    /** A fresh prefix on {@code connection}'s instance. */
    static PrefixedTables open(InstanceConnection connection) {
        String stamp = STAMP.format(ZonedDateTime.now(ZoneOffset.UTC));
        String random =
                String.format(
                                "%4s",
                                Integer.toString(new SecureRandom().nextInt(36 * 36 * 36 * 36), 36))
                        .replace(' ', '0');
        return new PrefixedTables(connection, STEM + stamp + "_" + random + "_");
    }

    String prefix() {
        return prefix;
    }

    /** {@code suffix} under the prefix. */
    String name(String suffix) {
        return prefix + suffix;
    }

    SyncClient sync() {
        return sync;
    }

    TunnelClient tunnels() {
        return tunnels;
    }

    InstanceConnection connection() {
        return connection;
    }

    /**
     * Creates table {@code suffix} under the prefix with one STRING key column {@code keyColumn}
     * and its stream enabled, and waits until a row can be written (an instance takes a few seconds
     * after CreateTable); returns its name.
     */
    String createTable(String suffix, String keyColumn) {
        String table = name(suffix);
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn(keyColumn, PrimaryKeyType.STRING);
        CreateTableRequest create = new CreateTableRequest(meta, new TableOptions(-1, 1));
        create.setStreamSpecification(new StreamSpecification(true, 24));
        sync.createTable(create);
        awaitWritable(table, keyColumn);
        return table;
    }

    /** Writes and deletes a probe row until both succeed. */
    private void awaitWritable(String table, String keyColumn) {
        PrimaryKey key =
                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                        .addPrimaryKeyColumn(keyColumn, PrimaryKeyValue.fromString(PROBE))
                        .build();
        long deadline = System.nanoTime() + WRITABLE.toNanos();
        while (true) {
            try {
                RowPutChange put = new RowPutChange(table, key);
                put.addColumn(new Column("probe", ColumnValue.fromBoolean(true)));
                sync.putRow(new PutRowRequest(put));
                sync.deleteRow(new DeleteRowRequest(new RowDeleteChange(table, key)));
                return;
            } catch (TableStoreException e) {
                if (!NOT_YET.contains(e.getErrorCode()) || System.nanoTime() > deadline) {
                    throw e;
                }
                pause();
            }
        }
    }

    /** Creates a tunnel on {@code table}; returns its id. */
    String createTunnel(String table, String tunnel, TunnelType type) {
        return tunnels.createTunnel(new CreateTunnelRequest(table, tunnel, type)).getTunnelId();
    }

    @Override
    public void close() {
        try {
            List<String> left = deleteAll(sync, tunnels, prefix);
            if (!left.isEmpty()) {
                System.err.printf(
                        "real-instance suite: could not delete %s; delete the tables named %s*"
                                + " by hand (docs/real-instance.md)%n",
                        left, prefix);
            }
        } finally {
            tunnels.shutdown();
            sync.shutdown();
        }
    }

    /**
     * Deletes every tunnel of every table whose name starts with {@code prefix}, then the tables;
     * returns what could not be deleted.
     */
    static List<String> deleteAll(SyncClient sync, TunnelClient tunnels, String prefix) {
        List<String> left = new ArrayList<>();
        for (String table : sync.listTable().getTableNames()) {
            if (!table.startsWith(prefix)) {
                continue;
            }
            try {
                for (TunnelInfo tunnel :
                        tunnels.listTunnel(new ListTunnelRequest(table)).getTunnelInfos()) {
                    tunnels.deleteTunnel(new DeleteTunnelRequest(table, tunnel.getTunnelName()));
                }
                sync.deleteTable(new DeleteTableRequest(table));
            } catch (RuntimeException e) {
                left.add(table + " (" + e.getMessage() + ")");
            }
        }
        return left;
    }

    /**
     * The tables of earlier runs that started more than {@code olderThan} ago (a run that was
     * killed before it deleted them), by name.
     */
    List<String> leftovers(Duration olderThan, Instant now) {
        List<String> left = new ArrayList<>();
        for (String table : sync.listTable().getTableNames()) {
            if (!table.startsWith(prefix)
                    && startedAt(table).filter(t -> t.isBefore(now.minus(olderThan))).isPresent()) {
                left.add(table);
            }
        }
        return left;
    }

    /** Deletes the tunnels and tables of {@link #leftovers}; returns what could not be deleted. */
    List<String> deleteLeftovers(List<String> leftovers) {
        List<String> left = new ArrayList<>();
        for (String table : leftovers) {
            left.addAll(deleteAll(sync, tunnels, table));
        }
        return left;
    }

    /** When the run whose prefix {@code name} is under started; empty for any other name. */
    static Optional<Instant> startedAt(String name) {
        Matcher m = NAME.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(LocalDateTime.parse(m.group(1), STAMP).toInstant(ZoneOffset.UTC));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(500); // retrying a table that is not writable yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted waiting for a new table", e);
        }
    }
}
