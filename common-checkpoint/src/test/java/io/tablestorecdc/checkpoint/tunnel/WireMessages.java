package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import com.aliyun.ots.thirdparty.com.google.protobuf.InvalidProtocolBufferException;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Responses of {@code readrecords} as protobuf messages and as read in place, both ways. */
final class WireMessages {

    private WireMessages() {}

    /** {@code message}'s bytes, read in place as the connectors read a response body. */
    static RecordsResponse inPlace(TunnelServiceApi.ReadRecordsResponse message) {
        try {
            return RecordsResponse.parse(message.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The SDK's protobuf message of the body {@code response} was read from. */
    static TunnelServiceApi.ReadRecordsResponse message(RecordsResponse response) {
        try {
            return TunnelServiceApi.ReadRecordsResponse.parseFrom(
                    ByteString.copyFrom(response.body(), 0, response.serializedSize()));
        } catch (InvalidProtocolBufferException e) {
            throw new UncheckedIOException(e);
        }
    }
}
