package io.tablestorecdc.emulator.tunnel;

import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.Row;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.aliyun.ots.thirdparty.com.google.protobuf.CodedOutputStream;
import com.aliyun.ots.thirdparty.com.google.protobuf.InvalidProtocolBufferException;
import io.tablestorecdc.emulator.server.ActionHandler;
import io.tablestorecdc.emulator.server.EmulatorError;
import io.tablestorecdc.emulator.server.EmulatorServer;
import io.tablestorecdc.emulator.server.Faults;
import io.tablestorecdc.emulator.server.Json;
import io.tablestorecdc.emulator.table.RowChange;
import io.tablestorecdc.emulator.table.TableAccess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.function.IntSupplier;

/**
 * The emulator's Tunnel Service: serves the ten {@code tunnel/*} actions the SDK's TunnelClient
 * calls, keeps each table's partitions and change logs (fed by the table layer), and offers the
 * admin operations (partitions, split, merge, client and tunnel expiry, read batch sizes) as Java
 * methods and as JSON routes under {@code /_emulator/}. Server behaviours the public documentation
 * leaves open are listed, with the choice made, in the module README's "Tunnel service" section.
 */
public final class TunnelService implements ActionHandler, AutoCloseable {

    /** The largest number of records one readrecords response carries by default. */
    public static final int DEFAULT_READ_BATCH_SIZE = 1000;

    /**
     * The largest size of the records of one readrecords response by default: 4 MB, the size cap
     * the service documents for a GetRange response and a write request (its Tunnel documentation
     * names none for ReadRecords; the SDK's worker reads up to 4 MB per round by default).
     */
    public static final int DEFAULT_READ_BATCH_BYTES = 4 * 1024 * 1024;

    private static final String READ_ACTION = "tunnel/readrecords";

    private final TableAccess tables;
    private final Faults faults;
    private final Tunnels tunnels;
    private volatile IntSupplier readBatchSize = () -> DEFAULT_READ_BATCH_SIZE;
    private volatile int readBatchBytes = DEFAULT_READ_BATCH_BYTES;

    /**
     * Registers the {@code tunnel/} actions and the admin routes with the server and listens to the
     * table layer's changes.
     */
    public TunnelService(TableAccess tables, EmulatorServer server) {
        this.tables = tables;
        this.faults = server.faults();
        this.tunnels = new Tunnels(server.instanceName(), System::currentTimeMillis);
        tables.addListener(new ChangeFeed());
        server.register("tunnel/", this);
        new TunnelAdmin(this).registerWith(server);
    }

    /**
     * Makes tunnel state (tunnels, partitions, checkpoints) durable in {@code dataDir}. Call it
     * before the table store replays its journal: the tunnel journal's events are then replayed
     * interleaved with the table's writes.
     */
    public void recoverFrom(Path dataDir) {
        try {
            tunnels.recoverFrom(TunnelJournal.open(dataDir));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot open the tunnel journal in " + dataDir + ": " + e.getMessage(), e);
        }
    }

    /** Closes the tunnel journal, if any; the in-memory state stays usable. */
    @Override
    public void close() {
        try {
            tunnels.closeJournal();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot close the tunnel journal", e);
        }
    }

    // ---- Java admin API ----------------------------------------------------------------------

    /** Every partition the table has had, oldest first, active or ended. */
    public List<PartitionView> partitions(String table) {
        requireMeta(table);
        return tunnels.partitionViews(table);
    }

    /**
     * Splits the active partition that holds {@code at} into {@code [start, at)} and {@code [at,
     * end)}; its stream channels finish after their last record. A key naming only leading columns
     * is padded with INF_MIN.
     *
     * @return the two new partition ids
     */
    public List<String> split(String table, PrimaryKey at) {
        return tunnels.split(table, PrimaryKeyJson.pad(requireMeta(table), at));
    }

    /**
     * Merges the active partition that starts at {@code at} with its left neighbour.
     *
     * @return the new partition's id
     */
    public String merge(String table, PrimaryKey at) {
        return tunnels.merge(table, PrimaryKeyJson.pad(requireMeta(table), at));
    }

    /**
     * Drops every client of the tunnel (by id, or by name when that is unique) now, as if their
     * heartbeats had timed out; their channels become assignable again.
     *
     * @return how many clients were dropped
     */
    public int expireClients(String tunnelIdOrName) {
        return unchecked(() -> tunnels.expireClients(tunnelIdOrName));
    }

    /** Expires the tunnel: every later call on it but describe, list and delete fails. */
    public void expireTunnel(String tunnelIdOrName) {
        unchecked(
                () -> {
                    tunnels.expireTunnel(tunnelIdOrName);
                    return null;
                });
    }

    /**
     * Makes each readrecords response carry a random number of records, 1 to {@code maxRecords},
     * drawn from a generator seeded with {@code seed} (to test that replays do not depend on how
     * the server batches).
     */
    public void varyReadBatchSizes(long seed, int maxRecords) {
        if (maxRecords < 1) {
            throw new IllegalArgumentException("maxRecords must be at least 1, got " + maxRecords);
        }
        Random random = new Random(seed);
        readBatchSize =
                () -> {
                    synchronized (random) {
                        return 1 + random.nextInt(maxRecords);
                    }
                };
    }

    /**
     * Caps every readrecords response at {@code bytes} of records (default {@link
     * #DEFAULT_READ_BATCH_BYTES}); a single larger record is still sent alone.
     */
    public void fixReadBatchBytes(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("bytes must be at least 1, got " + bytes);
        }
        readBatchBytes = bytes;
    }

    /** Caps every readrecords response at {@code records} records. */
    public void fixReadBatchSize(int records) {
        if (records < 1) {
            throw new IllegalArgumentException("records must be at least 1, got " + records);
        }
        readBatchSize = () -> records;
    }

    TableMeta requireMeta(String table) {
        return tables.tableMeta(table)
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "Table " + table + " does not exist; create it first"));
    }

    // ---- tunnel actions ----------------------------------------------------------------------

    @Override
    public byte[] handle(String action, byte[] body) throws EmulatorError {
        try {
            return dispatch(action, body);
        } catch (InvalidProtocolBufferException e) {
            throw TunnelErrors.parameterInvalid(
                    "Malformed "
                            + action
                            + " request ("
                            + e.getMessage()
                            + "); send the protobuf message the tunnel API defines");
        }
    }

    private byte[] dispatch(String action, byte[] body)
            throws EmulatorError, InvalidProtocolBufferException {
        switch (action) {
            case "tunnel/create":
                return create(TunnelServiceApi.CreateTunnelRequest.parseFrom(body));
            case "tunnel/list":
                return list(TunnelServiceApi.ListTunnelRequest.parseFrom(body));
            case "tunnel/describe":
                return describe(TunnelServiceApi.DescribeTunnelRequest.parseFrom(body));
            case "tunnel/delete":
                return delete(TunnelServiceApi.DeleteTunnelRequest.parseFrom(body));
            case "tunnel/connect":
                return connect(TunnelServiceApi.ConnectRequest.parseFrom(body));
            case "tunnel/heartbeat":
                return heartbeat(TunnelServiceApi.HeartbeatRequest.parseFrom(body));
            case "tunnel/shutdown":
                return shutdown(TunnelServiceApi.ShutdownRequest.parseFrom(body));
            case "tunnel/getcheckpoint":
                return getCheckpoint(TunnelServiceApi.GetCheckpointRequest.parseFrom(body));
            case "tunnel/checkpoint":
                return checkpoint(TunnelServiceApi.CheckpointRequest.parseFrom(body));
            case READ_ACTION:
                return read(TunnelServiceApi.ReadRecordsRequest.parseFrom(body));
            default:
                throw TunnelErrors.parameterInvalid(
                        "Unsupported tunnel action "
                                + action
                                + "; the emulator serves create, list, describe, delete, connect,"
                                + " heartbeat, shutdown, getcheckpoint, checkpoint, readrecords");
        }
    }

    private byte[] create(TunnelServiceApi.CreateTunnelRequest request) throws EmulatorError {
        String table = request.getTunnel().getTableName();
        Optional<TableMeta> meta = tables.tableMeta(table);
        if (meta.isEmpty()) {
            throw TunnelErrors.parameterInvalid(
                    "Table " + table + " does not exist; create the table before its tunnel");
        }
        PendingTunnel pending = tunnels.beginTunnel(request.getTunnel());
        Map<String, List<Row>> rows = new LinkedHashMap<>();
        try {
            // Snapshots are taken outside the tunnel lock: the table layer calls into it
            // under its own lock.
            for (PendingTunnel.BaseChannelSpec spec : pending.baseChannels()) {
                rows.put(spec.channelId(), snapshot(meta.get(), spec.range()));
            }
        } catch (RuntimeException e) {
            tunnels.abandonTunnel(pending.tunnelId());
            throw e;
        }
        tunnels.completeTunnel(pending, rows);
        return TunnelServiceApi.CreateTunnelResponse.newBuilder()
                .setTunnelId(pending.tunnelId())
                .build()
                .toByteArray();
    }

    private List<Row> snapshot(TableMeta meta, KeyRange range) {
        PrimaryKey start = range.start().orElse(bound(meta, PrimaryKeyValue.INF_MIN));
        PrimaryKey end = range.end().orElse(bound(meta, PrimaryKeyValue.INF_MAX));
        return tables.snapshot(meta.getTableName(), start, end);
    }

    private static PrimaryKey bound(TableMeta meta, PrimaryKeyValue value) {
        List<PrimaryKeyColumn> columns = new ArrayList<>();
        for (PrimaryKeySchema schema : meta.getPrimaryKeyList()) {
            columns.add(new PrimaryKeyColumn(schema.getName(), value));
        }
        return new PrimaryKey(columns);
    }

    private byte[] list(TunnelServiceApi.ListTunnelRequest request) {
        Optional<String> table =
                request.hasTableName() ? Optional.of(request.getTableName()) : Optional.empty();
        return TunnelServiceApi.ListTunnelResponse.newBuilder()
                .addAllTunnels(tunnels.list(table))
                .build()
                .toByteArray();
    }

    private byte[] describe(TunnelServiceApi.DescribeTunnelRequest request) throws EmulatorError {
        return tunnels.describe(request.getTableName(), request.getTunnelName()).toByteArray();
    }

    private byte[] delete(TunnelServiceApi.DeleteTunnelRequest request) throws EmulatorError {
        tunnels.delete(request.getTableName(), request.getTunnelName());
        return TunnelServiceApi.DeleteTunnelResponse.getDefaultInstance().toByteArray();
    }

    private byte[] connect(TunnelServiceApi.ConnectRequest request) throws EmulatorError {
        long timeout = request.hasClientConfig() ? request.getClientConfig().getTimeout() : 0;
        String clientId = tunnels.connect(request.getTunnelId(), timeout);
        return TunnelServiceApi.ConnectResponse.newBuilder()
                .setClientId(clientId)
                .build()
                .toByteArray();
    }

    private byte[] heartbeat(TunnelServiceApi.HeartbeatRequest request) throws EmulatorError {
        List<TunnelServiceApi.Channel> held =
                tunnels.heartbeat(
                        request.getTunnelId(), request.getClientId(), request.getChannelsList());
        return TunnelServiceApi.HeartbeatResponse.newBuilder()
                .addAllChannels(held)
                .build()
                .toByteArray();
    }

    private byte[] shutdown(TunnelServiceApi.ShutdownRequest request) throws EmulatorError {
        tunnels.shutdown(request.getTunnelId(), request.getClientId());
        return TunnelServiceApi.ShutdownResponse.getDefaultInstance().toByteArray();
    }

    private byte[] getCheckpoint(TunnelServiceApi.GetCheckpointRequest request)
            throws EmulatorError {
        return tunnels.getCheckpoint(
                        request.getTunnelId(), request.getClientId(), request.getChannelId())
                .toByteArray();
    }

    private byte[] checkpoint(TunnelServiceApi.CheckpointRequest request) throws EmulatorError {
        tunnels.checkpoint(
                request.getTunnelId(),
                request.getClientId(),
                request.getChannelId(),
                request.getCheckpoint(),
                request.getSequenceNumber());
        return TunnelServiceApi.CheckpointResponse.getDefaultInstance().toByteArray();
    }

    private byte[] read(TunnelServiceApi.ReadRecordsRequest request) throws EmulatorError {
        ReadBatch batch =
                tunnels.read(
                        request.getTunnelId(),
                        request.getClientId(),
                        request.getChannelId(),
                        request.getToken(),
                        readLimit());
        // Encoding happens outside the tunnel lock; a batch over the byte cap is cut after the
        // last record that fits (at least one record, so a channel always moves on).
        long nowMillis = System.currentTimeMillis();
        List<TunnelServiceApi.Record> records = new ArrayList<>(batch.size());
        batch.baseRows().forEach(row -> records.add(RecordEncoder.base(row, nowMillis)));
        batch.entries().forEach(entry -> records.add(RecordEncoder.stream(entry)));
        int fits = recordsWithin(records, readBatchBytes);
        if (fits < records.size()) {
            batch = batch.cutTo(fits);
        }
        TunnelServiceApi.ReadRecordsResponse.Builder out =
                TunnelServiceApi.ReadRecordsResponse.newBuilder()
                        .addAllRecords(records.subList(0, fits));
        out.setNextToken(batch.next().map(ChannelToken::encode).orElse(ChannelToken.FINISHED));
        out.setMayMoreRecord(batch.mayMore());
        return out.build().toByteArray();
    }

    /** How many of the first records fit in {@code maxBytes} of a response; at least one. */
    private static int recordsWithin(List<TunnelServiceApi.Record> records, int maxBytes) {
        long bytes = 0;
        for (int i = 0; i < records.size(); i++) {
            bytes += CodedOutputStream.computeMessageSize(1, records.get(i));
            if (bytes > maxBytes && i > 0) {
                return i;
            }
        }
        return records.size();
    }

    private int readLimit() {
        int limit = Math.max(1, readBatchSize.getAsInt());
        OptionalInt cap = faults.batchSize(READ_ACTION);
        return cap.isPresent() ? Math.max(1, Math.min(limit, cap.getAsInt())) : limit;
    }

    // ---- admin JSON --------------------------------------------------------------------------

    String partitionsJson(String table) {
        List<Object> out = new ArrayList<>();
        for (PartitionView p : partitions(table)) {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("id", p.id());
            json.put("start", p.range().start().map(PrimaryKeyJson::write).orElse(null));
            json.put("end", p.range().end().map(PrimaryKeyJson::write).orElse(null));
            json.put("status", p.active() ? "ACTIVE" : "ENDED");
            json.put("parents", p.parentIds());
            out.add(json);
        }
        return Json.write(out);
    }

    PrimaryKey keyFromJson(String table, Map<String, Object> json) {
        return PrimaryKeyJson.read(requireMeta(table), json);
    }

    private interface Call<T> {
        T run() throws EmulatorError;
    }

    private static <T> T unchecked(Call<T> call) {
        try {
            return call.run();
        } catch (EmulatorError e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** Feeds the table layer's acknowledged writes into the partitions' change logs. */
    private final class ChangeFeed implements TableAccess.TableListener {

        @Override
        public void onTableCreated(TableMeta meta) {
            tunnels.onTableCreated(meta.getTableName());
        }

        @Override
        public void onTableDeleted(String table) {
            tunnels.onTableDeleted(table);
        }

        @Override
        public void onRowChange(RowChange change) {
            tunnels.onRowChange(change);
        }
    }
}
