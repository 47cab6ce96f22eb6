package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.core.http.ResponseMessage;
import com.alicloud.openservices.tablestore.core.protocol.ResultParseException;
import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.aliyun.ots.thirdparty.org.apache.http.HttpVersion;
import com.aliyun.ots.thirdparty.org.apache.http.entity.ByteArrayEntity;
import com.aliyun.ots.thirdparty.org.apache.http.message.BasicHttpResponse;
import org.junit.jupiter.api.Test;

/** The body of a {@code readrecords} answer read in place, with the checks of the SDK's parser. */
class InPlaceParserTest {

    @Test
    void aWellFormedBodyIsReadInPlace() throws Exception {
        byte[] body =
                TunnelServiceApi.ReadRecordsResponse.newBuilder()
                        .setNextToken("next")
                        .setMayMoreRecord(true)
                        .build()
                        .toByteArray();
        RawReadRecords.InPlaceParser parser = new RawReadRecords.InPlaceParser();

        parser.getObject(answer(body, true));

        assertThat(parser.parsed().nextToken()).isEqualTo("next");
        assertThat(parser.parsed().mayMoreRecord()).isTrue();
    }

    @Test
    void aBodyThatIsNoMessageFailsAsTheSdksParserFailsIt() {
        byte[] garbled = {0x0a, 0x7f, 0x01};

        assertThatThrownBy(
                        () -> new RawReadRecords.InPlaceParser().getObject(answer(garbled, true)))
                .isInstanceOf(ResultParseException.class)
                .hasMessage("Failed to parse response as protocol buffer message.")
                .hasRootCauseMessage(
                        "While parsing a protocol message, the input ended unexpectedly in the"
                                + " middle of a field.");
    }

    @Test
    void anAnswerWithoutItsRequestIdIsRefusedAsTheSdkRefusesIt() {
        byte[] body =
                TunnelServiceApi.ReadRecordsResponse.newBuilder()
                        .setNextToken("next")
                        .build()
                        .toByteArray();

        assertThatThrownBy(() -> new RawReadRecords.InPlaceParser().getObject(answer(body, false)))
                .isInstanceOf(ClientException.class)
                .hasMessage("The required header is missing: x-ots-requestid");
    }

    private static ResponseMessage answer(byte[] body, boolean withRequestId) {
        BasicHttpResponse response = new BasicHttpResponse(HttpVersion.HTTP_1_1, 200, "OK");
        if (withRequestId) {
            response.addHeader("x-ots-requestid", "r-1");
        }
        response.setEntity(new ByteArrayEntity(body));
        return new ResponseMessage(response);
    }
}
