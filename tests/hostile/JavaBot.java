// A legitimate Java bot: answers "0" to every request line until EOF.  The JVM reserves
// gigabytes of address space and starts a dozen threads; the referee's default limits
// (resident memory, not address space) must let it run.  Run as: java JavaBot.java
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class JavaBot {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        while (in.readLine() != null) {
            System.out.println("0");
            System.out.flush();
        }
    }
}
