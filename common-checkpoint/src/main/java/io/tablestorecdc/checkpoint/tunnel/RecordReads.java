package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsRequest;

/**
 * How a {@link SdkTunnelProxy} sends one {@code readrecords} request and reads its answer: in main
 * code through {@link RawReadRecords} into a {@link PlainBufferRecordPage}; tests that script the
 * SDK's tunnel client read through the SDK's own decoding instead.
 */
@FunctionalInterface
interface RecordReads {

    /** One attempt (the proxy retries transient errors around it). */
    ReadResult read(ReadRecordsRequest request, String channelId);
}
