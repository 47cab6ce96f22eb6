package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.alicloud.openservices.tablestore.model.DefinedColumnSchema;
import com.alicloud.openservices.tablestore.model.DefinedColumnType;
import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyOption;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Converts table metadata between the CreateTable / DescribeTable messages and the model. */
final class TableMetaCodec {

    /** Tablestore's default for a table created without options: keep data forever. */
    private static final int FOREVER = -1;

    /** The max clock deviation the service reports by default (one day). */
    private static final long DEFAULT_DEVIATION_SECONDS = 86_400;

    private TableMetaCodec() {}

    static TableDescription fromCreate(OtsInternalApi.CreateTableRequest request, long nowMicros) {
        OtsInternalApi.TableOptions options = request.getTableOptions();
        Optional<Integer> stream =
                request.hasStreamSpec() && request.getStreamSpec().getEnableStream()
                        ? Optional.of(request.getStreamSpec().getExpirationTime())
                        : Optional.empty();
        return new TableDescription(
                fromProto(request.getTableMeta()),
                options.hasTimeToLive() ? options.getTimeToLive() : FOREVER,
                options.hasMaxVersions() ? options.getMaxVersions() : 1,
                stream,
                nowMicros,
                stream.isPresent() ? request.getStreamSpec().getColumnsToGetList() : List.of(),
                Partitions.splits(request));
    }

    /**
     * The table after an UpdateTable: the options and the stream specification the request carries
     * replace the table's, the rest stays. A stream enabled again keeps nothing of the one before:
     * its origin columns are the request's.
     */
    static TableDescription updated(
            TableDescription table, OtsInternalApi.UpdateTableRequest request) {
        int ttl = table.timeToLiveSeconds();
        int maxVersions = table.maxVersions();
        if (request.hasTableOptions()) {
            OtsInternalApi.TableOptions options = request.getTableOptions();
            ttl = options.hasTimeToLive() ? options.getTimeToLive() : ttl;
            maxVersions = options.hasMaxVersions() ? options.getMaxVersions() : maxVersions;
        }
        Optional<Integer> stream = table.streamExpirationHours();
        List<String> origin = table.streamOriginColumns();
        if (request.hasStreamSpec()) {
            OtsInternalApi.StreamSpecification spec = request.getStreamSpec();
            stream =
                    spec.getEnableStream()
                            ? Optional.of(spec.getExpirationTime())
                            : Optional.empty();
            origin = spec.getEnableStream() ? spec.getColumnsToGetList() : List.of();
        }
        return new TableDescription(
                table.meta(),
                ttl,
                maxVersions,
                stream,
                table.creationTimeMicros(),
                origin,
                table.shardSplits());
    }

    /** The UpdateTable answer: the table's options and stream as they are after it. */
    static OtsInternalApi.UpdateTableResponse updateResponse(TableDescription table) {
        OtsInternalApi.DescribeTableResponse described = describe(table);
        return OtsInternalApi.UpdateTableResponse.newBuilder()
                .setReservedThroughputDetails(described.getReservedThroughputDetails())
                .setTableOptions(described.getTableOptions())
                .setStreamDetails(described.getStreamDetails())
                .build();
    }

    /** The inverse of {@link #describe}, used to replay the journal. */
    static TableDescription fromDescribe(OtsInternalApi.DescribeTableResponse described) {
        OtsInternalApi.StreamDetails stream = described.getStreamDetails();
        return new TableDescription(
                fromProto(described.getTableMeta()),
                described.getTableOptions().getTimeToLive(),
                described.getTableOptions().getMaxVersions(),
                stream.getEnableStream()
                        ? Optional.of(stream.getExpirationTime())
                        : Optional.empty(),
                described.getCreationTime(),
                stream.getColumnToGetList(),
                shardSplits(described));
    }

    private static List<PrimaryKey> shardSplits(OtsInternalApi.DescribeTableResponse described) {
        List<PrimaryKey> splits = new ArrayList<>();
        for (ByteString split : described.getShardSplitsList()) {
            try {
                splits.add(PlainBufferCodec.primaryKey(split));
            } catch (EmulatorError e) {
                throw new IllegalStateException("A journaled shard split does not decode", e);
            }
        }
        return splits;
    }

    private static TableMeta fromProto(OtsInternalApi.TableMeta proto) {
        TableMeta meta = new TableMeta(proto.getTableName());
        for (OtsInternalApi.PrimaryKeySchema pk : proto.getPrimaryKeyList()) {
            PrimaryKeyType type = PrimaryKeyType.valueOf(pk.getType().name());
            meta.addPrimaryKeyColumn(
                    pk.hasOption()
                            ? new PrimaryKeySchema(
                                    pk.getName(), type, PrimaryKeyOption.AUTO_INCREMENT)
                            : new PrimaryKeySchema(pk.getName(), type));
        }
        for (OtsInternalApi.DefinedColumnSchema column : proto.getDefinedColumnList()) {
            meta.addDefinedColumn(
                    new DefinedColumnSchema(column.getName(), definedType(column.getType())));
        }
        return meta;
    }

    private static DefinedColumnType definedType(OtsInternalApi.DefinedColumnType type) {
        switch (type) {
            case DCT_INTEGER:
                return DefinedColumnType.INTEGER;
            case DCT_DOUBLE:
                return DefinedColumnType.DOUBLE;
            case DCT_BOOLEAN:
                return DefinedColumnType.BOOLEAN;
            case DCT_STRING:
                return DefinedColumnType.STRING;
            default:
                return DefinedColumnType.BINARY;
        }
    }

    private static OtsInternalApi.DefinedColumnType definedType(DefinedColumnType type) {
        switch (type) {
            case INTEGER:
                return OtsInternalApi.DefinedColumnType.DCT_INTEGER;
            case DOUBLE:
                return OtsInternalApi.DefinedColumnType.DCT_DOUBLE;
            case BOOLEAN:
                return OtsInternalApi.DefinedColumnType.DCT_BOOLEAN;
            case STRING:
                return OtsInternalApi.DefinedColumnType.DCT_STRING;
            default:
                return OtsInternalApi.DefinedColumnType.DCT_BLOB;
        }
    }

    /** A DescribeTable answer with every field the SDK requires. */
    static OtsInternalApi.DescribeTableResponse describe(TableDescription table) {
        long createdSeconds = table.creationTimeMicros() / 1_000_000;
        OtsInternalApi.DescribeTableResponse.Builder out =
                OtsInternalApi.DescribeTableResponse.newBuilder()
                        .setTableMeta(toProto(table.meta()))
                        .setReservedThroughputDetails(
                                OtsInternalApi.ReservedThroughputDetails.newBuilder()
                                        .setCapacityUnit(
                                                OtsInternalApi.CapacityUnit.newBuilder()
                                                        .setRead(0)
                                                        .setWrite(0))
                                        .setLastIncreaseTime(createdSeconds))
                        .setTableOptions(
                                OtsInternalApi.TableOptions.newBuilder()
                                        .setTimeToLive(table.timeToLiveSeconds())
                                        .setMaxVersions(table.maxVersions())
                                        .setDeviationCellVersionInSec(DEFAULT_DEVIATION_SECONDS)
                                        .setAllowUpdate(true))
                        .setCreationTime(table.creationTimeMicros());
        table.shardSplits().forEach(k -> out.addShardSplits(PlainBufferCodec.encodePrimaryKey(k)));
        OtsInternalApi.StreamDetails.Builder stream =
                OtsInternalApi.StreamDetails.newBuilder()
                        .setEnableStream(table.streamExpirationHours().isPresent());
        table.streamExpirationHours()
                .ifPresent(
                        hours ->
                                stream.setStreamId(table.name() + "_" + table.creationTimeMicros())
                                        .setExpirationTime(hours)
                                        .setLastEnableTime(table.creationTimeMicros())
                                        .addAllColumnToGet(table.streamOriginColumns()));
        return out.setStreamDetails(stream).build();
    }

    private static OtsInternalApi.TableMeta toProto(TableMeta meta) {
        OtsInternalApi.TableMeta.Builder out =
                OtsInternalApi.TableMeta.newBuilder().setTableName(meta.getTableName());
        for (PrimaryKeySchema pk : meta.getPrimaryKeyList()) {
            OtsInternalApi.PrimaryKeySchema.Builder column =
                    OtsInternalApi.PrimaryKeySchema.newBuilder()
                            .setName(pk.getName())
                            .setType(OtsInternalApi.PrimaryKeyType.valueOf(pk.getType().name()));
            if (pk.hasOption()) {
                column.setOption(OtsInternalApi.PrimaryKeyOption.AUTO_INCREMENT);
            }
            out.addPrimaryKey(column);
        }
        for (DefinedColumnSchema column : meta.getDefinedColumnsList()) {
            out.addDefinedColumn(
                    OtsInternalApi.DefinedColumnSchema.newBuilder()
                            .setName(column.getName())
                            .setType(definedType(column.getType())));
        }
        return out.build();
    }
}
