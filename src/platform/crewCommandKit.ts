// What the platform commands take from the crews' commands, passed in by the composition: platform/ must not
// import commands/ (.dependency-cruiser.cjs), and importCommand.ts and redeploy.ts need it as well as platformCommands.ts.
import type { Crew } from '../crews/crewConfig';
import type { CrewRegistry } from '../crews/crewRegistry';
import type { TokenKind } from '../crews/tokenRules';

export interface CrewCommandKit {
  /** Adds a crew with its token exactly as Add Crew saves one (crewCommands.ts addCrewDirectly). */
  addCrew(args: { url: string; name: string; token: string; tokenKind: TokenKind }): Promise<Crew | undefined>;
  pickCrew(crews: CrewRegistry, arg: unknown, placeholder: string, among?: readonly Crew[]): Promise<Crew | undefined>;
}
