package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.TunnelClientInterface;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsResponse;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.List;

/**
 * Record reads through the SDK's own decoding ({@link SdkRecordPage}): what a {@link
 * SdkTunnelProxy} over a scripted SDK tunnel client reads with, and the reference the main code's
 * {@link PlainBufferRecordPage} is held against.
 */
final class SdkDecodedReads {

    private SdkDecodedReads() {}

    /** Reads through {@code client}'s {@code readRecords}, decoded by the SDK. */
    static RecordReads of(TunnelClientInterface client) {
        return (request, channelId) -> toReadResult(client.readRecords(request), channelId);
    }

    /**
     * The SDK's response in our terms, with the SDK's "may have more" rule when it does not say.
     */
    static ReadResult toReadResult(ReadRecordsResponse response, String channelId) {
        List<StreamRecord> raw = response.getRecords();
        RecordPage records = new SdkRecordPage(raw == null ? List.of() : raw, channelId);
        String nextToken = response.getNextToken();
        ChannelPosition next =
                nextToken == null ? ChannelPosition.finished() : ChannelPosition.at(nextToken);
        int size = Math.max(0, response.getMemoizedSerializedSize());
        Boolean mayMore = response.getMayMoreRecord();
        boolean more =
                mayMore != null
                        ? mayMore
                        : records.size() > SdkTunnelProxy.MAY_MORE_RECORDS
                                || size > SdkTunnelProxy.MAY_MORE_BYTES;
        return new ReadResult(records, next, more);
    }
}
