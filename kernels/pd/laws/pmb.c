/* Prototype microelastic brittle bond (Silling 2000; paper 003 eqs. 2-4):
 * force density c s, broken for good once the stretch exceeds s0 (s0 <= 0:
 * never). Parameters: c (micromodulus), s0 (critical stretch). */
if (s0 > 0 && s > s0) {
  broken = 1;
  return 0;
}
return c * s;
